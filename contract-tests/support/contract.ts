/**
 * The bundled contract as the suite reads it: through the kit's contract model, the one the mock serves from,
 * so that suite and mock agree on what an operation documents and which operation a request is for. Added
 * here, what only the suite needs: operationIds typed as the client's, the documented (operation, status)
 * pairs of the coverage table, the request examples the scenarios send, and the tables of the tags' prose.
 * Nothing here starts or reads the mock: the suite runs the same against a remote sandbox.
 */
import type { OperationId } from '../../client/index.ts';
import { loadContractSync } from '../../contract-model/document.ts';
import { listOperations, type ContractOperation } from '../../contract-model/operations.ts';
import { createRouter, type RouteMatch } from '../../contract-model/router.ts';
import { schemaCompilerOf } from '../../contract-model/schema-compiler.ts';

// Read synchronously: Dredd loads its hooks, which import this module, as CommonJS.
export const contractDocument = loadContractSync();

/** The bundle's schemas, compiled as the mock compiles them. */
export const compiler = schemaCompilerOf(contractDocument);

export interface SuiteOperation extends ContractOperation {
  operationId: OperationId;
}

export type SuiteRoute = RouteMatch<SuiteOperation>;

function explicitStatuses(operation: ContractOperation): SuiteOperation {
  for (const status of operation.responses.keys()) {
    // The coverage table counts responses by their exact status: a range or `default` could not be exercised.
    if (!/^\d{3}$/.test(status)) throw new Error(`${operation.operationId}: the suite expects explicit statuses, not ${status}.`);
  }
  // The client's OperationId is derived from the same bundle's `paths`.
  return operation as SuiteOperation;
}

export const contractOperations: readonly SuiteOperation[] = listOperations(contractDocument).map(explicitStatuses);

const byId = new Map(contractOperations.map((operation) => [operation.operationId, operation]));

export function contractOperation(operationId: OperationId): SuiteOperation {
  const operation = byId.get(operationId);
  if (!operation) throw new Error(`The contract has no operation ${operationId}.`);
  return operation;
}

/** The operation a request is for, by method and path, as the target routes it. */
export const matchRoute = createRouter(contractOperations);

/** Whether the operation documents this status. */
export function documents(operation: ContractOperation, status: number): boolean {
  return operation.responses.has(String(status));
}

export interface DocumentedPair {
  operationId: OperationId;
  status: number;
}

/** Every (operation, status) the contract documents, in the bundle's order. */
export function documentedPairs(): DocumentedPair[] {
  return contractOperations.flatMap((operation) =>
    [...operation.responses.keys()].map((status) => ({ operationId: operation.operationId, status: Number(status) })),
  );
}

/** A deep copy of `components.examples[name].value`, so that a scenario may change it freely. */
export function exampleValue<T = Record<string, unknown>>(name: string): T {
  const example = contractDocument.components.examples?.[name];
  if (!example) throw new Error(`The contract has no example ${name}.`);
  return structuredClone(example.value) as T;
}

/**
 * The rows of a Markdown table in a tag's description whose header has these column names, e.g. the
 * *Rules checked on submission* of the Companies tag: the prose is part of the contract, so the suite reads
 * which rules exist from it rather than from a copy.
 */
export function tagTable(tagName: string, columns: readonly string[]): Record<string, string>[] {
  const tags = (contractDocument.tags as { name: string; description?: string }[] | undefined) ?? [];
  return markdownTable(tags.find((tag) => tag.name === tagName)?.description ?? '', columns);
}

/** The rows of a table in the API's own description (`info.description`), e.g. *Refusals before routing*. */
export function descriptionTable(columns: readonly string[]): Record<string, string>[] {
  return markdownTable((contractDocument.info as { description?: string }).description ?? '', columns);
}

/** The rows of the first Markdown table in `text` whose header has these column names. */
function markdownTable(text: string, columns: readonly string[]): Record<string, string>[] {
  const lines = text.split('\n').map((line) => line.trim());
  const cells = (line: string) =>
    line
      .replace(/^\|/, '')
      .replace(/\|$/, '')
      .split('|')
      .map((cell) => cell.trim());
  const headerIndex = lines.findIndex(
    (line) => line.startsWith('|') && columns.every((column, i) => cells(line)[i]?.toLowerCase() === column.toLowerCase()),
  );
  if (headerIndex < 0) return [];
  const rows: Record<string, string>[] = [];
  for (const line of lines.slice(headerIndex + 2)) {
    if (!line.startsWith('|')) break;
    const values = cells(line);
    rows.push(Object.fromEntries(columns.map((column, i) => [column, values[i] ?? ''])));
  }
  return rows;
}
