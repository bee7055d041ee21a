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
  return documentOf(text, path);
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
  return documentOf(text, path);
}

function unreadable(path: string, error: unknown): Error {
  return new Error(`cannot read the contract at ${path}: ${(error as Error).message}. Run \`npm run generate\`.`);
}

/**
 * The last document read from each path, with its text: a mock started again on the same file (each of a suite's
 * tests, in process or behind Mock Service Worker) gets the same object, and with it the checks already compiled for
 * it (schema-compiler.ts keeps them per document): 10 ms for a new mock's first three calls, against 80 ms. A file
 * that changed is parsed anew. What reads a document never changes it.
 */
const lastRead = new Map<string, { text: string; document: ContractDocument }>();

function documentOf(text: string, path: string): ContractDocument {
  const last = lastRead.get(path);
  if (last?.text === text) return last.document;
  const document = parseContract(text, path);
  lastRead.set(path, { text, document });
  return document;
}

function parseContract(text: string, path: string): ContractDocument {
  const document = JSON.parse(text) as ContractDocument;
  if (typeof document.openapi !== 'string' || !document.openapi.startsWith('3.1')) {
    throw new Error(`${path} is not an OpenAPI 3.1 document`);
  }
  return document;
}

