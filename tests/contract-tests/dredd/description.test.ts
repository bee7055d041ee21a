import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { reduceForDredd } from '../../../contract-tests/dredd/description.ts';

const load = async () => JSON.parse(await readFile(new URL('../../../generated/openapi.dereferenced.json', import.meta.url), 'utf8'));
const methods = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

type Operation = {
  parameters?: { name: string; in: string; required?: boolean; example?: unknown }[];
  requestBody?: { content: Record<string, { schema?: unknown; example?: unknown; examples?: unknown }> };
  responses: Record<string, { content?: Record<string, { schema?: unknown; example?: unknown; examples?: unknown }> }>;
};

function operationsOf(document: { paths: Record<string, Record<string, unknown>> }): [string, Operation][] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    methods.filter((method) => item[method]).map((method) => [`${method} ${path}`, item[method] as Operation] as [string, Operation]),
  );
}

describe("the copy of the dereferenced bundle Dredd reads", () => {
  it('keeps every operation with its parameters, each with the example Dredd needs to build a request', async () => {
    const whole = await load();
    const reduced = reduceForDredd(await load());
    expect(operationsOf(reduced).map(([name, operation]) => [name, operation.parameters])).toEqual(
      operationsOf(whole).map(([name, operation]) => [name, operation.parameters]),
    );
    const withoutExample = operationsOf(reduced).flatMap(([name, operation]) =>
      (operation.parameters ?? []).filter((parameter) => parameter.example === undefined).map((parameter) => `${name} ${parameter.name}`),
    );
    expect(withoutExample).toEqual([]);
  });

  it('drops a body schema only where examples stand in for it, and keeps the examples', async () => {
    const reduced = reduceForDredd(await load());
    const media = operationsOf(reduced).flatMap(([, operation]) => [
      ...Object.values(operation.requestBody?.content ?? {}),
      ...Object.values(operation.responses).flatMap((response) => Object.values(response.content ?? {})),
    ]);
    expect(media.length).toBeGreaterThan(0);
    for (const entry of media) {
      const hasExamples = entry.examples !== undefined || entry.example !== undefined;
      expect(entry.schema === undefined).toBe(hasExamples);
    }
    expect(Object.keys(reduced.components)).toEqual(['securitySchemes']);
  });
});
