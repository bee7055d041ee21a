// Spectral's resolver leaves some `$ref`s of a document split over many files in place (its cycle guard can stop a
// file that is reached along several routes), and may then never read the files they point to. A rule that meets
// such a `$ref` in the resolved document finishes the job here: it walks the same path from the root through the
// files as written, following every `$ref` itself.
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseYaml } from '@stoplight/spectral-parsers';

/** `node` itself, or, when it is a `$ref` left in place at `path` of the resolved document, the node it refers to. */
export function followRef(node, path, documentInventory) {
  if (!isRef(node)) return node;
  return nodeAt(path, documentInventory) ?? node;
}

function nodeAt(path, documentInventory) {
  const { document } = documentInventory;
  let at = follow({ node: document.data, file: document.source }, documentInventory);
  for (const key of path) {
    if (!isObject(at.node)) return undefined;
    at = follow({ node: at.node[key], file: at.file }, documentInventory);
  }
  return at.node;
}

function follow(at, documentInventory, hops = 0) {
  if (!isRef(at.node) || hops > 32) return at;
  const target = new URL(at.node.$ref, pathToFileURL(at.file ?? '/'));
  if (target.protocol !== 'file:') return { node: undefined, file: at.file };
  const file = fileURLToPath(target);
  const keys = target.hash
    .replace(/^#\/?/, '')
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => decodeURIComponent(segment).replace(/~1/g, '/').replace(/~0/g, '~'));
  const data = read(file, documentInventory);
  const node = keys.reduce((parent, key) => (isObject(parent) ? parent[key] : undefined), data);
  return follow({ node, file }, documentInventory, hops + 1);
}

// Per lint run, so that a file edited between two runs in one process is read again.
const filesReadPerRun = new WeakMap();

/** A file as written: from the documents Spectral read, else from disk (the resolver may have skipped it). */
function read(file, documentInventory) {
  const { document, referencedDocuments } = documentInventory;
  if (document.source === file) return document.data;
  if (referencedDocuments[file] !== undefined) return referencedDocuments[file].data;
  if (!filesReadPerRun.has(documentInventory)) filesReadPerRun.set(documentInventory, new Map());
  const filesRead = filesReadPerRun.get(documentInventory);
  if (!filesRead.has(file)) filesRead.set(file, parseYaml(readFileSync(file, 'utf8')).data);
  return filesRead.get(file);
}

function isRef(node) {
  return isObject(node) && typeof node.$ref === 'string';
}

function isObject(node) {
  return typeof node === 'object' && node !== null;
}
