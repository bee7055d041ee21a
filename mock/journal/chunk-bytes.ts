/**
 * A journal chunk's bytes as the store keeps them: its JSON as it is when small, compressed when large.
 *
 * A journal's entries repeat each other (the same headers, paths and answers, request after request), and Brotli at
 * its fastest quality makes a chunk of a few hundred of them 20 to 60 times smaller for about half a microsecond an
 * entry. The store then writes a twentieth of the bytes: SQLite a twentieth of the WAL pages, and of the pages its
 * checkpoints copy and sync; Redis a twentieth of the memory and of the network. At a few thousand requests a second
 * that was most of what the journal cost a request. A small chunk (a quiet mock writes a few entries at a time) is
 * kept as it is: starting a compressor costs tens of microseconds, more than its pages would.
 *
 * A compressed chunk is a tag byte (1), the length of its JSON (4 bytes, big-endian) and the JSON compressed; a
 * plain one is the JSON, which starts with `[`, as every chunk did before compression.
 */
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';

/** Chunks of at least this much JSON are compressed. */
const compressFrom = 32 * 1024;
/** No chunk holds more JSON than this (a thirty-second of the largest budget): a larger length read is damage. */
const maxJsonBytes = 32 * 1024 * 1024;
const brotliTag = 1;
const headerBytes = 5;

/** The bytes to store for a chunk's JSON. */
export function packChunk(json: Uint8Array): Uint8Array {
  if (json.byteLength < compressFrom) return json;
  const compressed = brotliCompressSync(json, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 1, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT, [constants.BROTLI_PARAM_SIZE_HINT]: json.byteLength },
  });
  const packed = Buffer.allocUnsafe(headerBytes + compressed.byteLength);
  packed[0] = brotliTag;
  packed.writeUInt32BE(json.byteLength, 1);
  compressed.copy(packed, headerBytes);
  return packed;
}

/** A stored chunk's JSON. Throws when the bytes are damaged (a compressed chunk that does not decompress). */
export function chunkJson(stored: Uint8Array): Uint8Array {
  if (stored[0] !== brotliTag) return stored;
  return brotliDecompressSync(stored.subarray(headerBytes));
}

/**
 * The length of a stored chunk's JSON, which is what the journal's budget counts (compressed or not, an entry costs
 * the same share of it), read without decompressing.
 */
export function chunkJsonLength(stored: Uint8Array): number {
  if (stored[0] !== brotliTag || stored.byteLength < headerBytes) return stored.byteLength;
  const length = Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength).readUInt32BE(1);
  return length <= maxJsonBytes ? length : stored.byteLength;
}
