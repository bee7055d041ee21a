/**
 * `node:fs`, `node:fs/promises`, `node:path`, `node:url` and `node:perf_hooks` in the browser build: a page has no
 * files (the contracts are bundled, msw-browser.ts), so whatever would read or write one says it needs Node; the
 * clock is the page's.
 */
import { notInBrowser } from './not-in-browser.ts';

const files = (): never => notInBrowser('Reading or writing files');
export const existsSync = (): boolean => false;
export const readFileSync = files;
export const readFile = files;
export const writeFile = files;
export const rename = files;
export const mkdir = files;
export const open = files;
export const rm = files;
export const stat = files;
export const unlink = files;
export const statSync = files;
export const dirname = (path: string): string => path.replace(/\/[^/]*$/, '') || '/';
export const join = (...parts: string[]): string => parts.join('/').replace(/\/+/g, '/');
export const resolve = join;
export const fileURLToPath = files;
export const performance = globalThis.performance;
export default { existsSync, readFileSync, readFile, writeFile, rename, mkdir, open, rm, stat, statSync };
