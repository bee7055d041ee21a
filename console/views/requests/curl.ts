/** A journal entry as a `curl` command against this mock, to send it again. */
import type { JournalExchange } from '../../api.ts';
import { maskedKey, partnerKey } from '../../session.ts';

/** Headers a command sends by itself, or that describe the connection rather than the request. */
const leftOut = new Set(['host', 'content-length', 'connection', 'accept-encoding', 'user-agent', 'transfer-encoding']);

/**
 * The request as a `curl` command against this mock. The key is the session's when it is the one masked in the
 * journal, and `$API_KEY` otherwise; a body that was cut or not kept cannot be sent again, and the command says so.
 */
export function curlOf(entry: JournalExchange): string {
  const request = entry.request;
  const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
  const url = `${location.origin}${entry.path}${request?.query ? `?${request.query}` : ''}`;
  const parts = ['curl', '-i', ...(entry.method === 'GET' ? [] : ['-X', entry.method]), quote(url)];
  for (const [name, value] of Object.entries(request?.headers ?? {})) {
    // A header the journal masked cannot be sent again as it was: left out, but for the key (below).
    if (leftOut.has(name) || (value === '[masked]' && name !== 'authorization')) continue;
    let sent = value;
    if (name === 'authorization') sent = partnerKey.value && entry.partner && maskedKey(partnerKey.value) === entry.partner ? partnerKey.value : '$API_KEY';
    parts.push('-H', name === 'authorization' && sent === '$API_KEY' ? `"authorization: $API_KEY"` : quote(`${name}: ${sent}`));
  }
  const body = request?.body;
  if (body?.text != null) parts.push('--data-raw', quote(body.text));
  const command = parts.join(' ');
  const notes = [
    ...(body && (body.text === null || body.truncated) ? [`# The body (${body.bytes} bytes) was not kept whole: add it before sending.`] : []),
    ...(request?.queryTruncated ? ['# The query string was not kept whole: complete it before sending.'] : []),
  ];
  return [...notes, command].join('\n');
}
