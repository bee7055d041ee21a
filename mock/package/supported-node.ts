/**
 * Whether this Node is one the package's `engines` range admits, and what to tell someone whose Node is not. Read
 * before anything else of the package loads (mock/package/main.ts): on an older Node the mock would fail later
 * with a stack trace about a module it lacks (node:sqlite), and the fix is a Node, not a flag. The package runs
 * without a clone, so the way out it names is one anybody has: npx, nvm, fnm.
 *
 * Only the comparators `engines` uses are read (`^X.Y.Z`, `>=X.Y.Z`, joined by `||`); the package's build refuses a
 * range with any other (readRange throws), so that the check is never a guess.
 */

type Version = readonly [number, number, number];
type Comparator = { kind: '^' | '>='; version: Version };

function parseVersion(text: string): Version {
  const match = /^(\d+)\.(\d+)\.(\d+)/.exec(text);
  if (!match) throw new Error(`not a version: ${JSON.stringify(text)}`);
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

function compare(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** The alternatives of an `engines.node` range, each a list of comparators that must all hold. */
export function readRange(range: string): Comparator[][] {
  return range.split('||').map((alternative) =>
    alternative.trim().split(/\s+/).map((comparator): Comparator => {
      const match = /^(\^|>=)(\d+\.\d+\.\d+)$/.exec(comparator);
      if (!match) throw new Error(`engines.node: ${JSON.stringify(comparator)} is not ^X.Y.Z or >=X.Y.Z, the comparators the package's Node check reads`);
      return { kind: match[1] as Comparator['kind'], version: parseVersion(match[2] as string) };
    }),
  );
}

function holds(comparator: Comparator, version: Version): boolean {
  const { kind, version: bound } = comparator;
  if (kind === '>=') return compare(version, bound) >= 0;
  return version[0] === bound[0] && compare(version, bound) >= 0;
}

export function supportsNode(range: string, nodeVersion: string): boolean {
  const version = parseVersion(nodeVersion);
  return readRange(range).some((alternative) => alternative.every((comparator) => holds(comparator, version)));
}

/** The newest major the range names: the one to suggest. */
function suggestedMajor(range: string): number {
  return Math.max(...readRange(range).flat().map((comparator) => comparator.version[0]));
}

export interface PackageFacts {
  name: string;
  version: string;
  bin: string;
  engines: string;
}

/** npm pack's name for the package's tarball: the scope's @ dropped, its / a dash. */
export function tarballOf(facts: Pick<PackageFacts, 'name' | 'version'>): string {
  return `${facts.name.replace(/^@/, '').replace('/', '-')}-${facts.version}.tgz`;
}

/** What the package says on a Node it does not run on, and how to get one it does. */
export function oldNodeMessage(facts: PackageFacts, nodeVersion: string): string {
  const major = suggestedMajor(facts.engines);
  const tarball = tarballOf(facts);
  return [
    `error: ${facts.name} ${facts.version} needs Node ${facts.engines}, and this is Node ${nodeVersion}.`,
    `Run it on Node ${major} without installing it (npx fetches Node from the npm registry):`,
    `  npx -p node@${major} -p ./${tarball} ${facts.bin} [options]`,
    `  npx -p node@${major} -p ${facts.name}@${facts.version} ${facts.bin} [options]    (from a registry)`,
    `or install Node ${major} (nvm install ${major}, fnm install ${major}, or https://nodejs.org) and run it again.`,
  ].join('\n');
}
