/**
 * Requests generated from the contract: parameters and bodies made by json-schema-faker from each operation's
 * schemas (the dereferenced bundle), seeded by fast-check so that a run replays exactly from its seed.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { generate } from 'json-schema-faker';
import type { ContractDocument, JsonObject } from '../../contract-model/document.ts';
import { listOperations, type ContractOperation } from '../../contract-model/operations.ts';

export const dereferenced = JSON.parse(readFileSync(new URL('../../generated/openapi.dereferenced.json', import.meta.url), 'utf8')) as ContractDocument;
export const operations: ContractOperation[] = listOperations(dereferenced);

export interface GeneratedRequest {
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** A value of the schema, from a seed fast-check chose (so shrinking and replay work on the seed). */
export const valueOf = (schema: JsonObject): fc.Arbitrary<Promise<unknown>> =>
  fc.integer({ min: 1, max: 2 ** 31 - 1 }).map((seed) => generate(schema as never, { seed, alwaysFakeOptionals: false } as never));

/** A request the contract describes for the operation (its values may still break a business rule). */
export function requestFor(operation: ContractOperation): fc.Arbitrary<Promise<GeneratedRequest>> {
  const parameters = operation.parameters.filter((parameter) => parameter.in === 'path' || parameter.in === 'query');
  const values = parameters.map((parameter) => fc.tuple(fc.boolean(), valueOf(parameter.schema)));
  const body = operation.requestBody?.content.get('application/json');
  return fc.tuple(fc.tuple(...values), body ? valueOf(body) : fc.constant(Promise.resolve(undefined))).map(
    async ([generated, bodyValue]) => {
      let path = operation.pathTemplate;
      const query = new URLSearchParams();
      for (const [index, parameter] of parameters.entries()) {
        const [include, value] = generated[index] as [boolean, Promise<unknown>];
        const text = String(await value);
        if (parameter.in === 'path') path = path.replace(`{${parameter.name}}`, encodeURIComponent(text));
        else if (parameter.required || include) query.set(parameter.name, text);
      }
      const headers: Record<string, string> = {};
      // A fresh key each time, not one fast-check chose: its generators repeat values, and a repeated key replays.
      if (operation.idempotent) headers['idempotency-key'] = randomUUID();
      const value = await bodyValue;
      if (value !== undefined) headers['content-type'] = 'application/json';
      const search = query.toString();
      return { path: search === '' ? path : `${path}?${search}`, headers, ...(value === undefined ? {} : { body: JSON.stringify(value) }) };
    },
  );
}

/** Where a hostile body grows: a place in a generated body, as the keys and indexes that lead to it. */
export type Place = (string | number)[];

/** Every object and array of a JSON value, outermost first. */
export function placesOf(value: unknown, at: Place = []): { place: Place; kind: 'object' | 'array' }[] {
  if (value === null || typeof value !== 'object') return [];
  const here = { place: at, kind: Array.isArray(value) ? ('array' as const) : ('object' as const) };
  const below = Object.entries(value).flatMap(([key, child]) => placesOf(child, [...at, Array.isArray(value) ? Number(key) : key]));
  return [here, ...below];
}

/** The value with the one at `place` replaced by what `change` makes of it. */
export function replaceAt(value: unknown, place: Place, change: (old: unknown) => unknown): unknown {
  if (place.length === 0) return change(value);
  const [head, ...rest] = place;
  const copy = (Array.isArray(value) ? [...value] : { ...(value as JsonObject) }) as Record<string | number, unknown>;
  copy[head as string] = replaceAt(copy[head as string], rest, change);
  return copy;
}

/** The seed of this run: FUZZ_SEED to replay one, else a fresh one (printed by the suite). */
export const seed = process.env.FUZZ_SEED === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(process.env.FUZZ_SEED);
/** Cases per property: FUZZ_RUNS, or the bounded default `npm test` runs. */
export const runs = (fallback: number): number => (process.env.FUZZ_RUNS === undefined ? fallback : Number(process.env.FUZZ_RUNS));
