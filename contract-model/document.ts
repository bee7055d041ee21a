/**
 * The bundled contract (generated/openapi.json), read once: everything the mock knows, and everything the
 * contract suite checks, comes from here.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { generatedPath } from './generated-files.ts';

export const defaultContractPath = generatedPath('openapi.json');

export type JsonObject = { [key: string]: unknown };

export interface ContractDocument extends JsonObject {
  openapi: string;
  paths: Record<string, JsonObject>;
  components: Record<string, Record<string, JsonObject>>;
  webhooks?: Record<string, JsonObject>;
}

export async function loadContract(path: string = defaultContractPath): Promise<ContractDocument> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw unreadable(path, error);
  }
  return parseContract(text, path);
}

/**
 * The same, read synchronously: for modules that are also loaded as CommonJS (Dredd `require`s its hooks, and
 * they import the suite's contract), where a top-level `await` is not allowed.
 */
export function loadContractSync(path: string = defaultContractPath): ContractDocument {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw unreadable(path, error);
  }
  return parseContract(text, path);
}

function unreadable(path: string, error: unknown): Error {
  return new Error(`cannot read the contract at ${path}: ${(error as Error).message}. Run \`npm run generate\`.`);
}

function parseContract(text: string, path: string): ContractDocument {
  const document = JSON.parse(text) as ContractDocument;
  if (typeof document.openapi !== 'string' || !document.openapi.startsWith('3.1')) {
    throw new Error(`${path} is not an OpenAPI 3.1 document`);
  }
  return document;
}

/** Follows local `$ref`s (`#/components/…`) until a real node is reached. */
export function deref<T = JsonObject>(document: ContractDocument, node: unknown): T {
  let current = node as JsonObject;
  for (let hops = 0; typeof current?.$ref === 'string'; hops += 1) {
    if (hops > 32) throw new Error(`$ref cycle at ${String(current.$ref)}`);
    current = pointer(document, current.$ref as string) as JsonObject;
  }
  return current as T;
}

export function pointer(document: ContractDocument, ref: string): unknown {
  if (!ref.startsWith('#/')) throw new Error(`only local $refs are supported in the bundle, got ${ref}`);
  return ref
    .slice(2)
    .split('/')
    .map((token) => decodeURIComponent(token).replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, key) => {
      if (node === null || typeof node !== 'object' || !(key in node)) throw new Error(`unresolvable $ref ${ref}`);
      return (node as JsonObject)[key];
    }, document);
}

/** The `maxItems` of an array property of a component schema, such as Customer's `companies`. */
export function maxItemsOf(document: ContractDocument, schemaName: string, property: string): number {
  const schema = deref(document, (document.components.schemas?.[schemaName]?.properties as Record<string, unknown> | undefined)?.[property]);
  if (typeof schema.maxItems !== 'number') throw new Error(`the contract gives ${schemaName}.${property} no maxItems`);
  return schema.maxItems;
}
