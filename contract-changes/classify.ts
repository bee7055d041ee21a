/**
 * Judges each detected change as a partner's integration sees it. What the partner writes (a request, or its
 * answer to a webhook) may only get more permissive; what it reads (a response, or a webhook payload) may only get
 * more precise, plus new properties, which the contract tells clients to ignore. Anything this file has no rule
 * for is breaking until a rule says otherwise: the gate fails closed, never open.
 */
import type { JsonObject } from '../contract-model/document.ts';
import type { DetectedChange } from './detect.ts';
import {
  describeScope, fieldPath, isMethod, keptOutBy, listedSubschemas, namedSubschemas, parsePointer, schemaPosition, valueAt,
  type Location, type Side,
} from './location.ts';
import { patternIncludes } from './pattern-inclusion.ts';

export type Category = 'breaking' | 'added' | 'changed' | 'deprecated';
/** The semantic-version part a release with this change must raise at least. */
export type Level = 'major' | 'minor' | 'patch';

export interface Judgement {
  category: Category;
  level: Level;
  /** What changed, for a reviewer: "maxLength lowered from 100 to 10". */
  what: string;
  /** For a breaking change: what fails for a partner. */
  why?: string;
}

export interface ClassifiedChange extends Judgement {
  location: Location;
  /** What happened to the value at the pointer: a keyword that gained or lost its value counts as added or removed. */
  kind: DetectedChange['kind'];
  /** For a breaking change made on purpose: why it is accepted (contract-changes/accepted.ts). */
  accepted?: string;
}

/** The extension that marks an enum the API may add values to; clients must accept values they do not know. */
export const openEnumExtension = 'x-open-enum';
/** The extension that dates a deprecation: `{ since, sunset, replacement }`. */
export const deprecationExtension = 'x-deprecation';

/** The root extension that states the service's limits as numbers (contract-model/contract-facts.ts reads it). */
export const serviceLimitsExtension = 'x-service-limits';

const breaking = (what: string, why: string): Judgement => ({ category: 'breaking', level: 'major', what, why });
const added = (what: string): Judgement => ({ category: 'added', level: 'minor', what });
/** A change that can break nobody but widens what the API accepts or promises: a minor release. */
const loosened = (what: string): Judgement => ({ category: 'changed', level: 'minor', what });
/** Documentation only: descriptions, summaries, examples, titles. */
const documented = (what: string): Judgement => ({ category: 'changed', level: 'patch', what });
const deprecated = (what: string): Judgement => ({ category: 'deprecated', level: 'minor', what });
const unjudged = (what: string): Judgement =>
  breaking(what, 'no rule of the gate judges this kind of change, so it is treated as breaking until one does');

const annotations = new Set(['description', 'summary', 'title', 'example', 'examples', 'externalDocs', '$comment', 'tags']);
const refusedRequest = 'a request that was valid before is refused now';
const unexpectedResponse = 'a client that relied on what the contract promised may now receive something else';
const beyondBound = 'a client that sized or checked the value by the old bound may now receive one beyond it';

export interface Contracts {
  /** Both prepared (prepareForDiff), as the change pointers refer to them. */
  before: JsonObject;
  after: JsonObject;
}

/** The change as a partner sees it; nothing when no partner sees it (inside a field kept out of that side). */
export function classify(change: DetectedChange, contracts: Contracts): ClassifiedChange | undefined {
  const segments = parsePointer(change.pointer);
  const document = change.kind === 'removed' ? contracts.before : contracts.after;
  const located = judgeDocumentChange(change, segments, contracts);
  if (located === undefined) return undefined;
  return {
    ...located.judgement,
    location: { pointer: change.pointer, scope: describeScope(segments, document), part: located.part, field: located.field },
    kind: effectiveKind(change),

  };
}

function effectiveKind(change: DetectedChange): DetectedChange['kind'] {
  if (change.kind !== 'modified') return change.kind;
  if (change.before === undefined) return 'added';
  return change.after === undefined ? 'removed' : 'modified';
}

interface Located {
  judgement: Judgement;
  part: string;
  field: string;
}

const whole = (judgement: Judgement, part = ''): Located => ({ judgement, part, field: '' });

function judgeDocumentChange(change: DetectedChange, segments: string[], contracts: Contracts): Located | undefined {
  const [root, name, third] = segments;
  switch (root) {
    case 'paths':
      if (segments.length === 2) return whole(judgeWhole(change, 'path'));
      if (third === 'key') return whole(judgePathRename(change));
      if (third === 'parameters') return judgeParameter(change, segments.slice(2), segments.slice(0, 4), contracts, 'request');
      if (isMethod(third)) return judgeOperation(change, segments.slice(3), segments.slice(0, 3), contracts, 'paths');
      return whole(judgeMetadata(change, third));
    case 'webhooks':
      if (segments.length === 2) return whole(judgeWhole(change, 'webhook'));
      if (isMethod(third)) return judgeOperation(change, segments.slice(3), segments.slice(0, 3), contracts, 'webhooks');
      return whole(judgeMetadata(change, third));
    case 'components':
      return whole(judgeComponent(change, name, segments));
    case 'servers':
      return whole(judgeServers(change, segments.slice(1)));
    case 'security':
      return whole(judgeSecurity(change, segments.slice(1), contracts.after.security));
    case 'info':
    case 'tags':
    case 'externalDocs':
      return whole(documented(`${root} ${describeKind(change)}`));
    case 'openapi':
      return whole(documented(`OpenAPI version ${String(change.before)} → ${String(change.after)}`));
    case serviceLimitsExtension:
      return whole(judgeServiceLimit(change, segments.slice(1)));
    default:
      return whole(root?.startsWith('x-') ? documented(`${root} ${describeKind(change)}`) : unjudged(`${root} ${describeKind(change)}`));
  }
}

function describeKind(change: DetectedChange): string {
  return change.kind === 'modified' ? `${change.property ?? 'value'} changed` : change.kind;
}

/** "maxLength changed", "examples added": for a change whose keyword the caller names. */
function changeOf(keyword: string, change: DetectedChange): string {
  const kind = effectiveKind(change);
  return `${keyword} ${kind === 'modified' ? 'changed' : kind}`;
}

function judgeWhole(change: DetectedChange, what: 'path' | 'webhook' | 'operation'): Judgement {
  if (change.kind === 'added') return added(`new ${what}`);
  if (change.kind === 'removed') {
    return breaking(`${what} removed`, what === 'webhook'
      ? 'partners subscribed to this event type stop receiving it'
      : 'calls to it are refused');
  }
  return unjudged(`${what} changed`);
}

function judgePathRename(change: DetectedChange): Judgement {
  const shape = (path: unknown) => String(path).replace(/\{[^}]+\}/g, '{}');
  if (shape(change.before) === shape(change.after)) {
    return breaking(`path parameter renamed: ${String(change.before)} → ${String(change.after)}`,
      'typed clients pass path parameters by name, and the old name no longer compiles');
  }
  return breaking(`path changed: ${String(change.before)} → ${String(change.after)}`, 'calls to the old path are refused');
}

/** Operation-level keywords that only document. */
function judgeMetadata(change: DetectedChange, keyword: string | undefined): Judgement {
  if (keyword !== undefined && (annotations.has(keyword) || keyword.startsWith('x-'))) {
    return documented(changeOf(keyword, change));
  }
  return unjudged(changeOf(keyword ?? 'path item', change));
}

function judgeOperation(
  change: DetectedChange, rest: string[], operation: string[], contracts: Contracts, kind: 'paths' | 'webhooks',
): Located | undefined {
  // A webhook inverts the exchange: the API sends the request (the partner reads it) and the partner answers.
  const bodySide: Side = kind === 'paths' ? 'request' : 'response';
  const answerSide: Side = kind === 'paths' ? 'response' : 'request';
  const [keyword] = rest;
  if (keyword === undefined) return whole(judgeWhole(change, kind === 'paths' ? 'operation' : 'webhook'));
  switch (keyword) {
    case 'parameters':
      return judgeParameter(change, rest, [...operation, 'parameters', rest[1] ?? ''], contracts, 'request');
    case 'requestBody':
      return judgeRequestBody(change, rest.slice(1), contracts, bodySide, kind === 'paths' ? 'request body' : 'payload');
    case 'responses':
      return judgeResponse(change, rest.slice(1), contracts, answerSide, kind === 'paths' ? 'response' : "partner's answer");
    case 'security':
      return whole(judgeSecurity(change, rest.slice(1), valueAt(contracts.after, [...operation, 'security'])), 'security');
    case 'operationId':
      return whole(change.kind === 'added' && change.before === undefined
        ? added('operationId given')
        : breaking(`operationId ${String(change.before)} → ${String(change.after)}`,
          'generated clients name their methods after it'));
    case 'deprecated':
    case 'x-deprecation':
      return whole(judgeDeprecation(change, keyword));
    case 'servers':
      return whole(judgeServers(change, rest.slice(1)), 'servers');
    default:
      return whole(judgeMetadata(change, keyword));
  }
}

function judgeParameter(change: DetectedChange, rest: string[], parameterPath: string[], contracts: Contracts, side: Side): Located | undefined {
  // A parameter removed is numbered as it was; any other change, as it is now (detect.ts).
  const removedWhole = change.kind === 'removed' && rest.length === 2;
  const parameter = (valueAt(removedWhole ? contracts.before : contracts.after, parameterPath) ?? valueAt(contracts.before, parameterPath) ?? {}) as JsonObject;
  const part = `${String(parameter.in ?? '')} parameter ${String(parameter.name ?? rest[1])}`.trim();
  const [, , keyword] = rest;
  if (keyword === undefined) {
    if (change.kind === 'removed') {
      return whole(breaking('parameter removed', 'requests that send it are refused, and typed clients no longer compile'), part);
    }
    if (change.kind === 'added') {
      return whole(parameter.required === true
        ? breaking('new required parameter', 'requests that do not send it are refused')
        : added('new optional parameter'), part);
    }
  }
  if (keyword === 'schema') return judgeSchemaChange(change, rest.slice(3), contracts, side, part);
  if (keyword === 'required') {
    return whole(change.after === true
      ? breaking('parameter became required', 'requests that do not send it are refused')
      : loosened('parameter became optional'), part);
  }
  if (keyword === 'deprecated' || keyword === 'x-deprecation') return whole(judgeDeprecation(change, keyword), part);
  if (keyword !== undefined && (annotations.has(keyword) || keyword.startsWith('x-'))) {
    return whole(documented(changeOf(keyword, change)), part);
  }
  return whole(breaking(changeOf(keyword ?? 'parameter', change),
    'the parameter is sent or read differently (name, place or serialization)'), part);
}

function judgeRequestBody(change: DetectedChange, rest: string[], contracts: Contracts, side: Side, part: string): Located | undefined {
  const [keyword, mediaType, inMedia] = rest;
  if (keyword === undefined) {
    if (change.kind === 'removed') return whole(breaking(`${part} removed`, refusedRequest), part);
    if (change.kind === 'added') {
      const required = (change.after as JsonObject | undefined)?.required === true;
      return whole(required ? breaking(`new required ${part}`, refusedRequest) : added(`new optional ${part}`), part);
    }
  }
  if (keyword === 'required') {
    if (side === 'response') return whole(loosened(`${part} ${change.after === true ? 'always sent' : 'optional'}`), part);
    return whole(change.after === true ? breaking(`${part} became required`, refusedRequest) : loosened(`${part} became optional`), part);
  }
  if (keyword === 'content') return judgeContent(change, mediaType, inMedia, rest.slice(3), contracts, side, part);
  return whole(judgeMetadata(change, keyword), part);
}

function judgeResponse(change: DetectedChange, rest: string[], contracts: Contracts, side: Side, partName: string): Located | undefined {
  const [status, keyword, name, inner] = rest;
  const part = `${partName} ${status ?? ''}`.trim();
  if (keyword === undefined) return whole(judgeResponseStatus(change, status ?? '', side), part);
  if (keyword === 'key') {
    // Redocly reads a response whose status changed (201 → 200) as the same response under a new key.
    return whole(breaking(`status ${String(change.before)} → ${String(change.after)}`,
      side === 'response' ? 'clients that check the documented status get another one' : 'receivers that answer with it are retried'), part);
  }
  if (keyword === 'headers' && name !== undefined) {
    const headerPart = `${part} header ${name}`;
    if (inner === undefined) {
      if (change.kind === 'removed') {
        return whole(side === 'response' ? breaking('response header removed', unexpectedResponse) : loosened('header no longer expected'), headerPart);
      }
      if (change.kind === 'added') return whole(added('new header'), headerPart);
    }
    if (inner === 'schema') return judgeSchemaChange(change, rest.slice(4), contracts, side, headerPart);
    if (inner === 'required') {
      const nowRequired = change.after === true;
      if (side === 'response') return whole(nowRequired ? loosened('header always sent') : breaking('header no longer always sent', unexpectedResponse), headerPart);
      return whole(nowRequired ? breaking('header became required', refusedRequest) : loosened('header became optional'), headerPart);
    }
    return whole(judgeMetadata(change, inner), headerPart);
  }
  if (keyword === 'content') return judgeContent(change, name, inner, rest.slice(4), contracts, side, `${part} body`);
  return whole(judgeMetadata(change, keyword), part);
}

function judgeResponseStatus(change: DetectedChange, status: string, side: Side): Judgement {
  const success = status.startsWith('2');
  if (side === 'request') {
    // The partner's answer to a webhook: a status the API stops accepting breaks receivers that send it.
    return change.kind === 'added' ? loosened(`status ${status} accepted`) : breaking(`status ${status} no longer accepted`,
      'receivers that answer with it see their deliveries retried and their endpoint disabled');
  }
  if (change.kind === 'added') {
    return success
      ? breaking(`new success status ${status}`, 'clients that expect the documented success status get another one')
      : added(`new error status ${status}`);
  }
  if (change.kind === 'removed') {
    return success
      ? breaking(`success status ${status} removed`, unexpectedResponse)
      : documented(`error status ${status} no longer documented`);
  }
  return unjudged(`response ${status} changed`);
}

function judgeContent(
  change: DetectedChange, mediaType: string | undefined, inMedia: string | undefined, below: string[], contracts: Contracts,
  side: Side, part: string,
): Located | undefined {
  const mediaPart = `${part} (${mediaType ?? 'any'})`;
  if (inMedia === undefined) {
    if (change.kind === 'added') return whole(added(`media type ${mediaType ?? ''} added`), mediaPart);
    if (change.kind === 'removed') {
      return whole(breaking(`media type ${mediaType ?? ''} removed`, side === 'request' ? refusedRequest : unexpectedResponse), mediaPart);
    }
  }
  if (inMedia === 'schema') return judgeSchemaChange(change, below, contracts, side, part);
  if (inMedia === 'example' || inMedia === 'examples') return whole(documented(changeOf(inMedia, change)), part);
  return whole(unjudged(changeOf(inMedia ?? 'media type', change)), mediaPart);
}

/** A security requirement: the schemes a request must satisfy together, each with the scopes it needs. */
type Requirement = Record<string, string[]>;

/**
 * A request satisfies one requirement of the list. A requirement that goes, or a scope list that changes, breaks
 * nobody when every request that met the old requirement meets one of the new list: one that asks the same schemes
 * or fewer, each with the same scopes or fewer (Redocly reports a requirement whose scopes changed as one removed and
 * one added).
 */
function judgeSecurity(change: DetectedChange, rest: string[], requirementsAfter: unknown): Judgement {
  if (change.kind === 'added' && rest.length === 1) return added('another way to authenticate accepted');
  const [index, scheme] = rest;
  const after = Array.isArray(requirementsAfter) ? (requirementsAfter as Requirement[]) : [];
  let before: Requirement | undefined;
  if (change.kind === 'removed' && scheme === undefined) before = change.before as Requirement | undefined;
  else if (scheme !== undefined && rest.length === 2 && Array.isArray(change.before)) before = { ...after[Number(index)], [scheme]: change.before as string[] };
  if (before !== undefined && after.some((requirement) => asksNoMoreThan(requirement, before))) {
    return loosened(`security requirement relaxed: ${describeRequirement(before)} no longer required as it was`);
  }
  return breaking(`security requirement ${describeKind(change)}`, 'requests authenticated as before are refused');
}

function asksNoMoreThan(requirement: Requirement, than: Requirement): boolean {
  return Object.entries(requirement).every(([scheme, scopes]) =>
    Array.isArray(than[scheme]) && scopes.every((scope) => than[scheme]!.includes(scope)));
}

const describeRequirement = (requirement: Requirement): string =>
  Object.entries(requirement).map(([scheme, scopes]) => (scopes.length === 0 ? scheme : `${scheme} [${scopes.join(', ')}]`)).join(' + ');

function judgeServers(change: DetectedChange, rest: string[]): Judgement {
  const [, keyword] = rest;
  if (keyword === undefined) {
    return change.kind === 'added' ? added('new server') : breaking(`server ${describeKind(change)}`, 'clients configured with it lose it');
  }
  if (keyword === 'url' || keyword === 'variables') return breaking(`server ${keyword} changed`, 'clients configured with it lose it');
  return documented(`server ${changeOf(keyword, change)}`);
}

function judgeComponent(change: DetectedChange, kind: string | undefined, segments: string[]): Judgement {
  const depth = segments.length;
  // Examples are documentation: no request or response changes with them, and no generated type is named after one.
  // One that is used is judged where it is used (an example there); one removed while used leaves a $ref that
  // lint refuses.
  if (kind === 'examples') return documented(depth === 3 ? `component example ${describeKind(change)}` : `component ${describeKind(change)}`);
  if (kind === 'securitySchemes') {
    if (depth === 3 && change.kind === 'added') return added('new security scheme');
    const keyword = segments[3];
    // An OAuth scope offered: a new one is for new requirements, a removed one can no longer be granted.
    if (keyword === 'flows' && segments[5] === 'scopes' && depth === 7) {
      if (change.kind === 'added') return added(`OAuth scope ${segments[6]} offered`);
      if (change.kind === 'removed') return breaking(`OAuth scope ${segments[6]} withdrawn`, 'tokens asked for with it are refused');
      return documented(`OAuth scope ${segments[6]} described anew`);
    }
    // Words for readers, and extensions newly stated (a fact the scheme already implied); a changed extension
    // may change what is accepted, so it is judged like the scheme itself.
    if (keyword === 'description' || (keyword?.startsWith('x-') && change.before === undefined)) return documented(changeOf(keyword, change));
    return breaking(`security scheme ${describeKind(change)}`, 'requests authenticated as before are refused');
  }
  if (depth === 3 && change.kind === 'added') return added(`new component in ${kind ?? 'components'}`);
  if (depth === 3 && change.kind === 'removed') {
    return breaking(`component removed from ${kind ?? 'components'}`, 'generated clients export a type of that name, and code using it no longer compiles');
  }
  // Component bodies are blanked by prepare.ts and judged where they are used; nothing else can change here.
  return unjudged(`component ${describeKind(change)}`);
}

/** The limits of `x-service-limits` a partner gains from when they grow: more bytes, more requests, longer waits. */
const generousWhenRaised = new Set([
  'requestBodyMaxBytes', 'requestHeadersMaxBytes', 'idempotencyKeyRetentionSeconds', 'downloadUrlValiditySeconds',
  'requestsPerSecond', 'burst', 'attemptTimeoutSeconds', 'timestampToleranceSeconds',
]);

/**
 * A limit newly stated only writes down what the prose said; one that goes leaves code that reads it without it.
 * Raising a limit is looser and lowering one breaks a partner that stayed within it. The retry schedule may only
 * gain attempts at its end: any other change can disable an endpoint sooner, or deliver when a receiver expects none.
 */
function judgeServiceLimit(change: DetectedChange, path: string[]): Judgement {
  const name = path.length === 0 ? serviceLimitsExtension : `${serviceLimitsExtension} ${path.join('.')}`;
  if (change.kind === 'added') return documented(`${name} stated`);
  if (change.kind === 'removed') return breaking(`${name} removed`, 'code that reads this limit from the contract no longer finds it');
  const leaf = path.at(-1) ?? '';
  const { before, after } = change;
  if (leaf === 'retryScheduleSeconds' && Array.isArray(before) && Array.isArray(after)) {
    const appended = after.length > before.length && before.every((delay, index) => after[index] === delay);
    const what = `webhook retry schedule [${before.join(', ')}] → [${after.join(', ')}] seconds`;
    return appended ? loosened(what) : breaking(what, 'an endpoint may be disabled sooner, or a retry arrive when the receiver expects none');
  }
  if (generousWhenRaised.has(leaf) && typeof before === 'number' && typeof after === 'number') {
    const what = `${name} ${after > before ? 'raised' : 'lowered'} from ${before} to ${after}`;
    return after > before ? loosened(what) : breaking(what, 'a partner that stayed within the limit may now exceed it');
  }
  return unjudged(`${name} changed`);
}

function judgeDeprecation(change: DetectedChange, keyword: string): Judgement {
  if (keyword === 'deprecated' && change.after !== true) return documented('no longer deprecated');
  return deprecated(keyword === 'deprecated' ? 'deprecated' : 'deprecation dates or replacement changed');
}

// ——— Schemas ———

function judgeSchemaChange(change: DetectedChange, below: string[], contracts: Contracts, side: Side, part: string): Located | undefined {
  const { schemaPath, keyword } = schemaPosition(below);
  const field = fieldPath(schemaPath);
  const segments = parsePointer(change.pointer);
  const schema: SchemaAt = { root: segments.slice(0, segments.length - below.length), path: schemaPath, contracts, side };
  if (keptOut(schema, schemaPath)) return undefined;
  if (keyword === undefined) return { judgement: judgeSubschema(change, schemaPath, side), part, field };
  const judgement = judgeKeyword(change, keyword, schema);
  return judgement === undefined ? undefined : { judgement, part, field };
}

/** Where a schema is: the pointer to its root (a request body's, a parameter's…), the path below it, the side. */
interface SchemaAt {
  root: string[];
  path: string[];
  contracts: Contracts;
  side: Side;
}

/**
 * Whether the field at `path` (or one it is inside) is kept out of the schema's side in each contract that has it:
 * then no partner sees a change to it there (a `writeOnly` field made required is not "now always present" in a
 * response that never carries it). A field let in or kept out by the change itself is judged (judgeDirection).
 */
function keptOut({ root, contracts, side }: SchemaAt, path: readonly string[]): boolean {
  const versions = [contracts.before, contracts.after]
    .map((contract) => fieldsAlong(valueAt(contract, root), path))
    .filter((fields) => fields !== undefined);
  return versions.length > 0 && versions.every((fields) => fields.some((field) => field[keptOutBy[side]] === true));
}

/** The properties the path goes through, outermost first; nothing when the path does not exist in this schema. */
function fieldsAlong(schema: unknown, path: readonly string[]): JsonObject[] | undefined {
  const fields: JsonObject[] = [];
  let node = schema;
  for (let index = 0; index < path.length; index += 1) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as JsonObject)[path[index]!];
    if (namedSubschemas.has(path[index]!)) {
      index += 1;
      node = typeof node === 'object' && node !== null ? (node as JsonObject)[path[index]!] : undefined;
      if (typeof node === 'object' && node !== null) fields.push(node as JsonObject);
    }
  }
  return node === undefined ? undefined : fields;
}

/** A whole subschema added or removed: a property, a `oneOf` branch, … */
function judgeSubschema(change: DetectedChange, schemaPath: string[], side: Side): Judgement {
  const container = schemaPath.at(-2);
  if (container !== undefined && namedSubschemas.has(container)) {
    if (change.kind === 'added') return added(side === 'request' ? 'new optional property' : 'new property');
    if (change.kind === 'removed') {
      return breaking('property removed', side === 'request'
        ? 'request bodies are strict, so requests that send it are refused'
        : 'clients that read it find it missing');
    }
  }
  if (container !== undefined && listedSubschemas.has(container)) {
    const more = change.kind === 'added';
    if (side === 'request') return more ? loosened(`${container} alternative added`) : breaking(`${container} alternative removed`, refusedRequest);
    return more ? breaking(`${container} alternative added`, unexpectedResponse) : loosened(`${container} alternative removed`);
  }
  return unjudged(`schema ${describeKind(change)}`);
}

const upperBounds = new Set(['maxLength', 'maximum', 'exclusiveMaximum', 'maxItems', 'maxProperties', 'maxContains']);
const lowerBounds = new Set(['minLength', 'minimum', 'exclusiveMinimum', 'minItems', 'minProperties', 'minContains']);

function judgeKeyword(change: DetectedChange, keyword: string, schema: SchemaAt): Judgement | undefined {
  const { before, after } = change;
  const { contracts, side } = schema;
  if (annotations.has(keyword)) return documented(changeOf(keyword, change));
  if (upperBounds.has(keyword) || lowerBounds.has(keyword)) return judgeBound(keyword, before, after, side);
  switch (keyword) {
    case 'enum':
      return judgeEnum(before, after, side, enumOwner(change, contracts.after));
    case 'required':
      return judgeRequired(before, after, schema);
    case 'nullable':
      return judgeNullable(before, after, side);
    case 'type':
      return judgeType(before, after, side);
    case 'const':
    case 'pattern':
    case 'format':
    case 'multipleOf':
    case 'uniqueItems':
    case 'contentMediaType':
    case 'contentEncoding':
      return judgeRestriction(keyword, before, after, side);
    case 'additionalProperties':
    case 'unevaluatedProperties':
      return judgeAdditional(keyword, before, after, side);
    case 'default':
      return judgeDefault(change, side);
    case 'deprecated':
    case deprecationExtension:
      return judgeDeprecation(change, keyword);
    case openEnumExtension:
      return after === true && side === 'response'
        ? breaking('enum opened to new values', 'clients may switch over the documented values exhaustively')
        : documented(changeOf(openEnumExtension, change));
    case 'readOnly':
    case 'writeOnly':
      return judgeDirection(keyword, change, side);
    case 'items':
    case 'prefixItems':
    case 'discriminator':
    case 'not':
    case 'if':
    case 'then':
    case 'else':
      return breaking(changeOf(keyword, change), side === 'request' ? refusedRequest : unexpectedResponse);
    default:
      if (keyword.startsWith('x-')) return documented(changeOf(keyword, change));
      return unjudged(changeOf(keyword, change));
  }
}

/**
 * A default says what a request that omits the field means. One stated where there was none writes down what the
 * API did already; one changed or withdrawn changes what such requests mean. In a response it only documents.
 */
function judgeDefault(change: DetectedChange, side: Side): Judgement {
  const what = `default ${String(JSON.stringify(change.before))} → ${String(JSON.stringify(change.after))}`;
  if (side === 'response') return documented('default changed');
  if (change.before === undefined) return documented(`default stated: ${JSON.stringify(change.after)}`);
  return breaking(what, 'requests that omit the field now mean something else');
}

/**
 * `readOnly` keeps a field out of requests and `writeOnly` out of responses: each matters on its own side only. A
 * field newly kept out of the side it is on breaks who sends or reads it there; let back in, it breaks nobody.
 */
function judgeDirection(keyword: 'readOnly' | 'writeOnly', change: DetectedChange, side: Side): Judgement {
  const keptOut = keyword === 'readOnly' ? 'request' : 'response';
  if (side !== keptOut) return documented(changeOf(keyword, change));
  if (change.after !== true) return loosened(changeOf(keyword, change));
  return breaking(changeOf(keyword, change), side === 'request'
    ? 'requests that send the field may be refused'
    : 'responses no longer carry the field, and clients that read it find it missing');
}

/**
 * Whether the range of values got larger or smaller; a bound that appears narrows, one that goes widens. What the
 * partner sends may only get wider; what it receives only narrower: a client that sized a buffer, a column or a
 * check on the old bound breaks on a value beyond it. A shared schema's bound is judged at each use, on its side.
 */
function judgeBound(keyword: string, before: unknown, after: unknown, side: Side): Judgement {
  const upper = upperBounds.has(keyword);
  let wider: boolean;
  if (typeof before !== 'number') wider = false;
  else if (typeof after !== 'number') wider = true;
  else wider = upper ? after > before : after < before;
  const what = `${keyword} ${describeBound(before, after)}`;
  if (side === 'request' && !wider) return breaking(what, refusedRequest);
  if (side === 'response' && wider) return breaking(what, beyondBound);
  return loosened(what);
}

function describeBound(before: unknown, after: unknown): string {
  if (before === undefined) return `set to ${String(after)}`;
  if (after === undefined) return `${String(before)} removed`;
  return `${Number(after) > Number(before) ? 'raised' : 'lowered'} from ${String(before)} to ${String(after)}`;
}

function judgeEnum(before: unknown, after: unknown, side: Side, schema: JsonObject | undefined): Judgement {
  const was = Array.isArray(before) ? before : undefined;
  const now = Array.isArray(after) ? after : undefined;
  const removedValues = was ? was.filter((value) => !now?.includes(value)) : [];
  const addedValues = now ? now.filter((value) => !was?.includes(value)) : [];
  const list = (values: unknown[]) => values.map((value) => JSON.stringify(value)).join(', ');
  if (was !== undefined && now !== undefined && removedValues.length === 0 && addedValues.length === 0) {
    return documented('enum listed in another order');
  }
  if (side === 'request') {
    if (now === undefined) return loosened('enum removed (any value accepted)');
    if (was === undefined || removedValues.length > 0) {
      return breaking(was === undefined ? 'enum added' : `enum values removed: ${list(removedValues)}`, refusedRequest);
    }
    return added(`enum values accepted: ${list(addedValues)}`);
  }
  if (now === undefined) return breaking('enum removed (any value may be sent)', unexpectedResponse);
  if (addedValues.length > 0 && was !== undefined) {
    if (schema?.[openEnumExtension] === true) return added(`enum values added: ${list(addedValues)} (the enum is open)`);
    return breaking(`enum values added: ${list(addedValues)}`,
      `clients may switch over the documented values exhaustively; mark the enum \`${openEnumExtension}: true\` if it may grow`);
  }
  return loosened(was === undefined ? 'enum added' : `enum values no longer sent: ${list(removedValues)}`);
}

/** The schema that holds a changed `enum` (its pointer minus the keyword), in the contract after the change. */
function enumOwner(change: DetectedChange, after: JsonObject): JsonObject | undefined {
  return valueAt(after, parsePointer(change.pointer).slice(0, -1)) as JsonObject | undefined;
}

/** What `required` now says, of the fields the schema's side carries (a `writeOnly` one is never in a response). */
function judgeRequired(before: unknown, after: unknown, schema: SchemaAt): Judgement | undefined {
  const carried = (name: string) => !keptOut(schema, [...schema.path, 'properties', name]);
  const was = Array.isArray(before) ? (before as string[]) : [];
  const now = Array.isArray(after) ? (after as string[]) : [];
  const newlyRequired = now.filter((name) => !was.includes(name) && carried(name));
  const noLongerRequired = was.filter((name) => !now.includes(name) && carried(name));
  if (newlyRequired.length === 0 && noLongerRequired.length === 0) {
    return now.length === was.length && now.every((name) => was.includes(name)) ? documented('required listed in another order') : undefined;
  }
  if (schema.side === 'request') {
    if (newlyRequired.length > 0) return breaking(`now required: ${newlyRequired.join(', ')}`, 'requests that leave it out are refused');
    return loosened(`now optional: ${noLongerRequired.join(', ')}`);
  }
  if (noLongerRequired.length > 0) {
    return breaking(`no longer always present: ${noLongerRequired.join(', ')}`, 'clients that read it may find it missing');
  }
  return loosened(`now always present: ${newlyRequired.join(', ')}`);
}

/** OpenAPI 3.0's `nullable`, judged as `null` added to or removed from `type` is. */
function judgeNullable(before: unknown, after: unknown, side: Side): Judgement {
  const what = `nullable ${JSON.stringify(before) ?? 'unset'} → ${JSON.stringify(after) ?? 'unset'}`;
  const nullAllowed = after === true && before !== true;
  if (side === 'request') return nullAllowed || after !== true ? loosened(what) : breaking(what, refusedRequest);
  return nullAllowed ? breaking(what, unexpectedResponse) : loosened(what);
}

function typeSet(value: unknown): Set<string> | undefined {
  if (value === undefined) return undefined;
  const types = new Set(Array.isArray(value) ? (value as string[]) : [String(value)]);
  // Every integer is a number, so `number` includes `integer`.
  if (types.has('number')) types.add('integer');
  return types;
}

function judgeType(before: unknown, after: unknown, side: Side): Judgement {
  const was = typeSet(before);
  const now = typeSet(after);
  const what = `type ${JSON.stringify(before) ?? 'any'} → ${JSON.stringify(after) ?? 'any'}`;
  const covers = (outer: Set<string> | undefined, inner: Set<string> | undefined) =>
    outer === undefined || (inner !== undefined && [...inner].every((type) => outer.has(type)));
  if (side === 'request') return covers(now, was) ? loosened(what) : breaking(what, refusedRequest);
  return covers(was, now) ? loosened(what) : breaking(what, unexpectedResponse);
}

/**
 * Keywords that restrict values: gaining one narrows, losing one widens, changing one does either. What the partner
 * sends may only widen; what it receives only narrow (a client that parsed the old `format` or matched the old
 * `pattern` breaks on a value that no longer fits it). A changed `pattern` narrows or widens when one of the two is
 * known to accept all the other does (pattern-inclusion.ts); otherwise it is taken to do both.
 */
function judgeRestriction(keyword: string, before: unknown, after: unknown, side: Side): Judgement {
  const what = `${keyword} ${before === undefined ? `set to ${JSON.stringify(after)}` : after === undefined
    ? `${JSON.stringify(before)} removed` : `${JSON.stringify(before)} → ${JSON.stringify(after)}`}`;
  const isUnique = keyword === 'uniqueItems';
  const patterns = keyword === 'pattern' && typeof before === 'string' && typeof after === 'string';
  const widens = after === undefined || (isUnique && after === false) || (patterns && patternIncludes(after, before));
  const narrows = (before === undefined && !(isUnique && after === false)) || (isUnique && after === true && before !== true)
    || (patterns && patternIncludes(before, after));
  if (side === 'request') return widens ? loosened(what) : breaking(what, refusedRequest);
  return narrows ? loosened(what) : breaking(what, unexpectedResponse);
}

function judgeAdditional(keyword: string, before: unknown, after: unknown, side: Side): Judgement {
  const closed = (value: unknown) => value === false;
  const what = `${keyword} ${JSON.stringify(before) ?? 'unset'} → ${JSON.stringify(after) ?? 'unset'}`;
  if (side === 'request') {
    return closed(after) && !closed(before) ? breaking(what, 'requests with other properties are refused') : loosened(what);
  }
  // Responses may gain properties at any time (the contract says so), so opening a response schema breaks nobody.
  return loosened(what);
}

/** Classifies every change; `contracts` are the prepared documents the changes were detected in. */
export function classifyAll(changes: readonly DetectedChange[], contracts: Contracts): ClassifiedChange[] {
  return changes.map((change) => classify(change, contracts)).filter((change) => change !== undefined);
}
