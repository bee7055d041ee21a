/**
 * The bundled contract (generated/openapi.json), read once: everything the mock knows, and everything the
 * contract suite checks, comes from here.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { ContractDocument } from './document-nodes.ts';
import { generatedPath } from './generated-files.ts';

export { deref, maxItemsOf, pointer, type ContractDocument, type JsonObject } from './document-nodes.ts';

export const defaultContractPath = generatedPath('openapi.json');

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

