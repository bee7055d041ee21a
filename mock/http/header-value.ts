/**
 * Header values as the mock writes them: text of any origin (the violations it names, quoting the contract, the
 * request's field names and the upstream's answer; messages; the upstream's own headers) made of the characters a
 * header may carry, so that writing an answer never fails on its text and no answer is ever dropped for it.
 *
 * The escaping: tab, space and visible ASCII are written as they are; every other character (a control character,
 * DEL, anything past ASCII) is written as the percent-escapes of its UTF-8 bytes, as a URI writes them (RFC 3986,
 * section 2.1): `… and 2 more` becomes `%E2%80%A6 and 2 more`, `ключ` becomes `%D0%BA%D0%BB%D1%8E%D1%87`. A value
 * that needs nothing done is written unchanged, `%` included (a Location or Link keeps its own escapes), so that
 * escaping twice changes nothing; `decodeURIComponent` reads an escaped value back. Latin-1 (which Node would write
 * as single bytes, obs-text) is escaped too: clients read such bytes differently, and UTF-8 escapes read one way.
 */

/** What a header value may hold as it is. */
const plain = /^[\t\x20-\x7E]*$/;
/** A run of what it may not. */
const unsafe = /[^\t\x20-\x7E]+/g;

export function headerValue(value: string): string {
  if (plain.test(value)) return value;
  // Buffer writes a lone surrogate (half a character, which encodeURIComponent refuses) as U+FFFD's bytes.
  return value.replace(unsafe, (run) => Array.from(Buffer.from(run, 'utf8'), percentEscape).join(''));
}

/**
 * `text` cut so that, written (escaped), it takes at most `maxLength` characters, ending in `…` when cut: a length
 * bound of a header that quotes text must count what the text becomes, up to nine characters for one (`…` itself is
 * `%E2%80%A6`), or a header cut at 4,000 characters could take 24,000 bytes, past the 16 KiB of headers most clients
 * read (Node's and undici's default), which would lose the whole answer.
 */
export function headerTextWithin(text: string, maxLength: number): string {
  if (text.length <= maxLength && plain.test(text)) return text;
  const room = maxLength - writtenLength(ellipsis);
  let length = 0;
  let cutAt: number | undefined;
  let index = 0;
  for (const character of text) {
    length += writtenLength(character);
    if (cutAt === undefined && length > room) cutAt = index;
    if (length > maxLength) return `${text.slice(0, cutAt)}${ellipsis}`;
    index += character.length;
  }
  return text;
}

const ellipsis = '…';

/** The characters one character takes once written. */
function writtenLength(character: string): number {
  return plain.test(character) ? 1 : 3 * Buffer.byteLength(character, 'utf8');
}

function percentEscape(byte: number): string {
  return `%${byte < 16 ? '0' : ''}${byte.toString(16).toUpperCase()}`;
}

/**
 * A header value received as bytes (fetch hands them over one character per byte, as Latin-1) read as the text it
 * carries: UTF-8 where the bytes are UTF-8, else Latin-1 (HTTP's historical charset). `headerValue` then writes
 * UTF-8 bytes back as their own escapes: `clé` sent as UTF-8 reaches the client as `cl%C3%A9`, never as mojibake.
 */
export function receivedHeaderText(value: string): string {
  if (plain.test(value)) return value;
  const bytes = Buffer.from(value, 'latin1');
  try {
    return utf8.decode(bytes);
  } catch {
    return value;
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
