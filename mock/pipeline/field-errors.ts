/** Turns JSON Schema errors into the contract's `FieldError`s, with the FieldErrorCode of each keyword. */
import type { ErrorObject } from 'ajv';
import type { FieldError, FieldErrorCode } from '../../generated/openapi.js';

const codeOfKeyword: Record<string, FieldErrorCode> = {
  required: 'E_REQUIRED',
  additionalProperties: 'E_UNKNOWN_FIELD',
  unevaluatedProperties: 'E_UNKNOWN_FIELD',
  type: 'E_TYPE',
  format: 'E_FORMAT',
  pattern: 'E_PATTERN',
  minLength: 'E_TOO_SHORT',
  maxLength: 'E_TOO_LONG',
  minimum: 'E_OUT_OF_RANGE',
  maximum: 'E_OUT_OF_RANGE',
  exclusiveMinimum: 'E_OUT_OF_RANGE',
  exclusiveMaximum: 'E_OUT_OF_RANGE',
  multipleOf: 'E_OUT_OF_RANGE',
  enum: 'E_NOT_ALLOWED_VALUE',
  const: 'E_NOT_ALLOWED_VALUE',
  minItems: 'E_TOO_FEW_ITEMS',
  maxItems: 'E_TOO_MANY_ITEMS',
  uniqueItems: 'E_DUPLICATE_ITEMS',
};

// Composite keywords only say "a branch failed"; the branch's own errors say what.
const compositeKeywords = new Set(['oneOf', 'anyOf', 'allOf', 'if', 'then', 'else', 'not']);

export function toFieldErrors(errors: readonly ErrorObject[] | null | undefined, location: FieldError['in'], prefix = ''): FieldError[] {
  if (!errors?.length) return [];
  const concrete = errors.filter((error) => !compositeKeywords.has(error.keyword));
  const chosen = concrete.length > 0 ? concrete : errors;
  return chosen.map((error) => toFieldError(error, location, prefix));
}

/**
 * One mistake, one problem: a value usually breaks several keywords at once (an empty name is too short and
 * matches no pattern either), and a screen showing them all beside one field says the same thing twice. So each
 * field keeps its most basic problem: what it is missing or should not be there, then its type, then its allowed
 * values, then its size, then its form. The others follow from it, or are seen once it is fixed. The contract states
 * this order in FieldErrorCode's table.
 */
const basicFirst: readonly FieldErrorCode[] = [
  'E_REQUIRED',
  'E_UNKNOWN_FIELD',
  'E_PARAMETER_REPEATED',
  'E_TYPE',
  'E_NOT_ALLOWED_VALUE',
  'E_TOO_SHORT',
  'E_TOO_LONG',
  'E_TOO_FEW_ITEMS',
  'E_TOO_MANY_ITEMS',
  'E_OUT_OF_RANGE',
  'E_FORMAT',
  'E_PATTERN',
  'E_DUPLICATE_ITEMS',
  'E_INVALID',
];

/** Each field's most basic problem, in the order the fields were first named. */
export function mostBasicPerField(problems: readonly FieldError[]): FieldError[] {
  const rank = (problem: FieldError) => {
    const at = basicFirst.indexOf(problem.code);
    return at < 0 ? basicFirst.length : at;
  };
  const kept = new Map<string, FieldError>();
  for (const problem of problems) {
    const key = `${problem.in}|${problem.field}`;
    const held = kept.get(key);
    if (!held || rank(problem) < rank(held)) kept.set(key, problem);
  }
  return [...kept.values()];
}

function toFieldError(error: ErrorObject, location: FieldError['in'], prefix: string): FieldError {
  const params = error.params as Record<string, unknown>;
  let field = prefix + error.instancePath;
  if (error.keyword === 'required') field += `/${escapeToken(String(params.missingProperty))}`;
  if (error.keyword === 'additionalProperties') field += `/${escapeToken(String(params.additionalProperty))}`;
  if (error.keyword === 'unevaluatedProperties') field += `/${escapeToken(String(params.unevaluatedProperty))}`;
  return { in: location, field, code: codeOfKeyword[error.keyword] ?? 'E_INVALID', message: messageOf(error) };
}

function messageOf(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return 'Required.';
    case 'additionalProperties':
    case 'unevaluatedProperties':
      return 'Unknown property: the contract does not define it here.';
    case 'type':
      return `Must be of type ${String(params.type)}.`;
    case 'format':
      return `Must be a valid ${String(params.format)}.`;
    case 'pattern':
      return patternRule(error);
    case 'minLength':
      return params.limit === 1 ? 'Must not be empty.' : `Must be at least ${characters(params.limit)} long.`;
    case 'maxLength':
      return `Must be at most ${characters(params.limit)} long.`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `Must be ${String(params.comparison)} ${String(params.limit)}.`;
    case 'multipleOf':
      return `Must be a multiple of ${String(params.multipleOf)}.`;
    case 'enum':
      return `Must be one of ${(params.allowedValues as unknown[]).map(String).join(', ')}.`;
    case 'const':
      return `Must be ${String(params.allowedValue)}.`;
    case 'minItems':
      return `Must have at least ${String(params.limit)} items.`;
    case 'maxItems':
      return `Must have at most ${String(params.limit)} items.`;
    case 'uniqueItems':
      return `Must not repeat an item (items ${String(params.j)} and ${String(params.i)} are equal).`;
    default:
      return error.message ? `${error.message[0]?.toUpperCase()}${error.message.slice(1)}.` : 'Invalid.';
  }
}

/**
 * The contract states each pattern's rule in words beside it (`x-pattern-description`, which the lint requires): that
 * is what a sender is shown, never the regular expression.
 */
function patternRule(error: ErrorObject): string {
  const described = (error.parentSchema as Record<string, unknown> | undefined)?.['x-pattern-description'];
  return typeof described === 'string' ? described : 'Does not have the form the contract requires here.';
}

function characters(count: unknown): string {
  return count === 1 ? '1 character' : `${String(count)} characters`;
}

export function escapeToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}
