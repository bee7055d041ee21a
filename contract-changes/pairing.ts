/**
 * Which item of a list before a change is which item after it: the differ (detect.ts) compares paired items and
 * reports the others as removed or added. A list is matched by what identifies its items in OpenAPI (a parameter
 * by where and under which name it is sent, a server by its URL, a security requirement by its schemes), and the
 * branches of a `oneOf` by likeness: a branch whose patterns all gained a description, or whose `const` changed,
 * is the same branch changed, not one removed and another added.
 */

/** A pairing: indexes into the list before and after; unpaired items were removed or added. */
export type Pairs = [before: number, after: number][];

/** What names an item of a list, or nothing when the item cannot be named that way. */
type Identity = (item: unknown) => string | undefined;

export function pairByIdentities(before: readonly unknown[], after: readonly unknown[], identities: readonly Identity[]): Pairs {
  const pairs: Pairs = [];
  const freeBefore = new Set(before.keys());
  const freeAfter = new Set(after.keys());
  const pair = (was: number, now: number) => {
    pairs.push([was, now]);
    freeBefore.delete(was);
    freeAfter.delete(now);
  };
  for (const identity of identities) {
    // An identity pairs only the items it names uniquely on both sides.
    const named = (list: readonly unknown[], free: Set<number>) => {
      const byName = new Map<string, number[]>();
      for (const index of free) {
        const name = identity(list[index]);
        if (name !== undefined) byName.set(name, [...(byName.get(name) ?? []), index]);
      }
      return byName;
    };
    const [was, now] = [named(before, freeBefore), named(after, freeAfter)];
    for (const [name, indexes] of was) {
      const matches = now.get(name);
      if (indexes.length === 1 && matches?.length === 1) pair(indexes[0]!, matches[0]!);
    }
  }
  return pairs;
}

/** The leftovers of a pairing: one item removed and one added are the same item changed. */
export function pairLeftovers(before: readonly unknown[], after: readonly unknown[], pairs: Pairs): Pairs {
  const freeBefore = [...before.keys()].filter((index) => !pairs.some(([was]) => was === index));
  const freeAfter = [...after.keys()].filter((index) => !pairs.some(([, now]) => now === index));
  return freeBefore.length === 1 && freeAfter.length === 1 ? [...pairs, [freeBefore[0]!, freeAfter[0]!]] : pairs;
}

const asObject = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

/** Parameters: by place and name; then by name alone (one moved from the query to a header). */
export function pairParameters(before: readonly unknown[], after: readonly unknown[]): Pairs {
  const field = (name: string) => (item: unknown) => {
    const value = asObject(item)?.[name];
    return typeof value === 'string' ? value : undefined;
  };
  const placed: Identity = (item) => {
    const [where, name] = [field('in')(item), field('name')(item)];
    return where === undefined || name === undefined ? undefined : `${where} ${name}`;
  };
  const inPath: Identity = (item) => (field('in')(item) === 'path' ? 'path' : undefined);
  const pairs = pairByIdentities(before, after, [placed, field('name')]);
  // A path parameter renamed with its path: the only one left on each side is the same one.
  return [...pairs, ...pairByIdentities(unpaired(before, pairs, 0), unpaired(after, pairs, 1), [inPath])
    .map(([was, now]): [number, number] => [freeIndex(before, pairs, 0, was), freeIndex(after, pairs, 1, now)])];
}

/** Servers: by URL; a lone server whose URL changed is the same server. */
export function pairServers(before: readonly unknown[], after: readonly unknown[]): Pairs {
  const url: Identity = (item) => {
    const value = asObject(item)?.url;
    return typeof value === 'string' ? value : undefined;
  };
  return pairLeftovers(before, after, pairByIdentities(before, after, [url]));
}

/** Security requirements: by the schemes they combine (their scopes may change). */
export function pairRequirements(before: readonly unknown[], after: readonly unknown[]): Pairs {
  const schemes: Identity = (item) => {
    const requirement = asObject(item);
    return requirement === undefined ? undefined : Object.keys(requirement).sort().join(' + ');
  };
  return pairByIdentities(before, after, [schemes]);
}

/** Tags: by name. */
export function pairTags(before: readonly unknown[], after: readonly unknown[]): Pairs {
  const name: Identity = (item) => {
    const value = asObject(item)?.name;
    return typeof value === 'string' ? value : undefined;
  };
  return pairByIdentities(before, after, [name]);
}

/** Items that never move: `prefixItems`, the positions of a tuple. */
export function pairByPosition(before: readonly unknown[], after: readonly unknown[]): Pairs {
  return [...before.keys()].filter((index) => index < after.length).map((index) => [index, index]);
}

/** Keywords that only word a schema: they say nothing of which branch is which. */
const wording = new Set(['description', 'title', 'summary', 'examples', 'example', '$comment', 'externalDocs', 'deprecated']);

/**
 * Subschemas (`oneOf`, `anyOf`, `allOf` branches): the same schema; then by title; then by the `const` values of
 * their properties (a discriminator's value); then the likest pairs, as long as they share at least half of what
 * they require (every keyword but wording, each value at its place).
 */
export function pairSubschemas(before: readonly unknown[], after: readonly unknown[]): Pairs {
  const same: Identity = (item) => JSON.stringify(item);
  const title: Identity = (item) => {
    const value = asObject(item)?.title;
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  const constants: Identity = (item) => {
    const properties = asObject(asObject(item)?.properties) ?? {};
    const values = Object.entries(properties)
      .filter(([, property]) => asObject(property)?.const !== undefined)
      .map(([name, property]) => `${name}=${JSON.stringify(asObject(property)!.const)}`);
    return values.length === 0 ? undefined : values.sort().join(' ');
  };
  const pairs = pairByIdentities(before, after, [same, title, constants]);
  const freeBefore = [...before.keys()].filter((index) => !pairs.some(([was]) => was === index));
  const freeAfter = new Set([...after.keys()].filter((index) => !pairs.some(([, now]) => now === index)));
  const facts = (schema: unknown) => new Set(leafFacts(schema, ''));
  const candidates: [number, number, number][] = [];
  for (const was of freeBefore) {
    const known = facts(before[was]);
    for (const now of freeAfter) {
      const found = facts(after[now]);
      const shared = [...known].filter((fact) => found.has(fact)).length;
      const likeness = shared / Math.max(1, new Set([...known, ...found]).size);
      if (likeness >= 0.5) candidates.push([likeness, was, now]);
    }
  }
  const taken = new Set<number>();
  for (const [, was, now] of candidates.sort((a, b) => b[0] - a[0])) {
    if (taken.has(was) || !freeAfter.has(now)) continue;
    pairs.push([was, now]);
    taken.add(was);
    freeAfter.delete(now);
  }
  return pairs;
}

/** `properties/kind/const="circle"`: each value a schema requires, at its place, wording and extensions left out. */
function leafFacts(node: unknown, at: string): string[] {
  const object = asObject(node);
  if (object === undefined) return [`${at}=${JSON.stringify(node)}`];
  return Object.entries(object)
    .filter(([key]) => !wording.has(key) && !key.startsWith('x-'))
    .flatMap(([key, value]) => leafFacts(value, `${at}/${key}`));
}

function unpaired(list: readonly unknown[], pairs: Pairs, side: 0 | 1): unknown[] {
  return [...list.keys()].filter((index) => !pairs.some((pair) => pair[side] === index)).map((index) => list[index]);
}

/** The index in `list` of the `position`th item that `pairs` left unpaired. */
function freeIndex(list: readonly unknown[], pairs: Pairs, side: 0 | 1, position: number): number {
  return [...list.keys()].filter((index) => !pairs.some((pair) => pair[side] === index))[position]!;
}
