/**
 * Headers of one connection (RFC 9110, section 7.6.1), which a proxy never forwards either way: those HTTP names so
 * (`Connection`, `Keep-Alive`, `Transfer-Encoding`…), what fetch sets itself, and every header the message's own
 * `Connection` header names (`Connection: close, X-Session-Hop` makes `X-Session-Hop` the connection's own).
 */

const alwaysHopByHop = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'host', 'content-length', 'expect', 'proxy-authorization', 'proxy-authenticate']);

/** A test of header names (lower-case) that are the connection's own, for a message whose `Connection` is `connection`. */
export function hopByHop(connection: string | readonly string[] | null | undefined): (name: string) => boolean {
  const named = [connection ?? []].flat().flatMap((value) => value.split(',')).map((name) => name.trim().toLowerCase()).filter((name) => name !== '');
  if (named.length === 0) return (name) => alwaysHopByHop.has(name);
  const all = new Set([...alwaysHopByHop, ...named]);
  return (name) => all.has(name);
}
