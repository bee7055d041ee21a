/**
 * `node:zlib` in the browser build. The journal compresses its large chunks with Brotli (journal/chunk-bytes.ts), which
 * a browser cannot do synchronously: there a chunk is kept as it is behind the same header, which its reader
 * undoes the same way. Its budget counts a chunk's JSON either way, so the journal holds as many requests. Answers
 * are never compressed in process (http/fetch-request.ts), so the asynchronous encoders are never called.
 */
import { notInBrowser } from './not-in-browser.ts';

export const constants = { BROTLI_PARAM_QUALITY: 1, BROTLI_PARAM_MODE: 0, BROTLI_MODE_TEXT: 1, BROTLI_PARAM_SIZE_HINT: 5 };
export const brotliCompressSync = (bytes: Uint8Array): Uint8Array => bytes;
export const brotliDecompressSync = (bytes: Uint8Array): Uint8Array => bytes;
export const brotliCompress = (): never => notInBrowser('Compressing an answer');
export const gzip = (): never => notInBrowser('Compressing an answer');
