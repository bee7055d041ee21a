/**
 * A deprecated operation's dates, read from its `x-deprecation` extension (the lint requires it beside
 * `deprecated: true`), and the headers that announce them on every answer: `Deprecation` (RFC 9745, the moment it
 * was deprecated as a structured date, `@` and Unix seconds) and `Sunset` (RFC 8594, an HTTP date).
 */
import type { JsonObject } from './document-nodes.ts';

export interface Deprecation {
  /** YYYY-MM-DD: when the deprecation was announced. */
  since: string;
  /** YYYY-MM-DD: when the operation stops working. */
  sunset: string;
  replacement: string;
}

export function readDeprecation(operation: JsonObject): Deprecation | undefined {
  if (operation.deprecated !== true) return undefined;
  const dating = operation['x-deprecation'] as JsonObject | undefined;
  if (dating === undefined) return undefined;
  return { since: asDate(dating.since), sunset: asDate(dating.sunset), replacement: String(dating.replacement ?? '') };
}

/** A YAML date may reach the bundle as a full timestamp (`2027-06-30T00:00:00.000Z`); the day is what counts. */
function asDate(value: unknown): string {
  return String(value instanceof Date ? value.toISOString() : value).slice(0, 10);
}

export function deprecationHeaders(deprecation: Deprecation): { deprecation: string; sunset: string } {
  const since = Date.parse(`${deprecation.since}T00:00:00Z`);
  const sunset = Date.parse(`${deprecation.sunset}T00:00:00Z`);
  return { deprecation: `@${Math.floor(since / 1000)}`, sunset: new Date(sunset).toUTCString() };
}
