/**
 * Reads an upstream's answer body, at most `maxBytes` of it (`--upstream-max-body`): an upstream that never stops
 * sending, or sends more than any answer of the contract, costs the proxy that much memory and no more. Past the
 * bound (announced by Content-Length, or counted as the bytes come) reading stops and the body is cancelled, which
 * closes the upstream's connection: nothing more is taken from it. How long reading may take is the fetch's signal's.
 */

/** The answer was larger than the bound: nothing of it is kept. */
export const tooLarge = Symbol('too large');

export async function readBoundedBody(response: Response, maxBytes: number): Promise<Uint8Array | typeof tooLarge> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body?.cancel();
    return tooLarge;
  }
  if (!response.body) return new Uint8Array(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      return tooLarge;
    }
    chunks.push(value);
  }
  return chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks, total);
}
