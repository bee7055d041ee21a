/**
 * Credentials as the contracts describe them (an API key's `x-key-format`, a webhook signing secret's
 * `WebhookSecret` pattern), found wherever they appear in a text and masked: the one rule behind every log line,
 * journal entry, URL and masked key the mock shows, and the console's masked key; and how a URL is shown.
 *
 * A credential is found in the text as it would be read, not as it was written: through the escapes a URL, a JSON
 * string or an HTML page wraps characters in (`dk%5Ftest%5F…`, `dk\u005ftest…`, `&#95;`), nested up to
 * `maxDecodings` deep (`%255F`), and with no word boundary around it (after a letter, `\n`, `%20` or `%3D`, before
 * `_`). Its format's length bounds are left open: the start of a key cut short (a value cut to its bound, a key
 * split across a header's name and value) is masked, and so is a key run on into more of its characters, whole.
 * Prefixes are matched in any case. What replaces a credential spans exactly the characters that wrote it, escapes
 * and all, so the text around it is left as it was (a JSON text stays JSON): a key shows as partners see one listed
 * (`dk_test_…wxyz`: its prefix and, when whole, its last four), a secret as its prefix only (`whsec_[masked]`).
 */
import { contractFacts } from '../generated/contract-facts.ts';

/** What stands for the part of a value that is not shown. */
export const masked = '[masked]';

/** How deep escapes are undone: more than any client nests by accident, and a bound on the work a text can cause. */
const maxDecodings = 5;

interface CredentialKind {
  /** Its prefix (`dk_(?:test|live)_`), as a search. */
  prefix: string;
  /** The characters it is written with, as a class (`[A-Za-z0-9]`). */
  characters: string;
  /** What may end it (`={0,2}`), as a search. */
  padding: string;
  /** How many of its characters make a whole one. */
  minLength: number;
  /** How one is shown, from its prefix and its characters (never empty). */
  shown(prefix: string, characters: string, whole: boolean): string;
}

/**
 * A credential's format, `^PREFIX[CHARACTERS]{m,n}PADDING$` or with `+` or `*`, read for a search: anchors
 * dropped, the prefix's own groups made non-capturing, its length left open. A format of another shape stops the
 * start, so that a contract change that needs this reading changed is noticed.
 */
function kindOf(format: string, what: string, shown: CredentialKind['shown']): CredentialKind {
  const parts = /^\^(.*?)(\[[^\]]+\])(?:\{(\d+)(?:,\d*)?\}|(\+)|\*)(.*)\$$/.exec(format);
  if (!parts) throw new Error(`${what} ${JSON.stringify(format)} is not PREFIX[CHARACTERS]{m,n}: masking cannot read it`);
  const [, prefix = '', characters = '', min, plus, padding = ''] = parts;
  // Without a prefix every run of its characters would be one: nothing could be told from text.
  if (prefix === '') throw new Error(`${what} ${JSON.stringify(format)} has no prefix: masking cannot tell one in a text`);
  return { prefix: prefix.replace(/\((?!\?)/g, '(?:'), characters, padding, minLength: min !== undefined ? Number(min) : plus ? 1 : 0, shown };
}

const kinds: readonly CredentialKind[] = [
  kindOf(contractFacts.apiKey.format, 'The API key format', (prefix, characters, whole) => `${prefix}…${whole ? characters.slice(-4) : ''}`),
  kindOf(contractFacts.webhookSecret.format, 'The webhook secret format', (prefix) => `${prefix}${masked}`),
];

/** Every kind in one search, its length open: kind i's prefix is group 2i + 1, its characters group 2i + 2. */
const credential = new RegExp(kinds.map((kind) => `(${kind.prefix})(${kind.characters}*)(?:${kind.padding})`).join('|'), 'gi');
/**
 * One with something to mask: a prefix and at least one of its characters. A text already masked (`dk_test_…wxyz`,
 * a journal's entry exported) holds prefixes alone, and is not read a second time, noting where each character came
 * from, for nothing.
 */
const maskable = new RegExp(kinds.map((kind) => `(?:${kind.prefix})${kind.characters}`).join('|'), 'i');

/**
 * Escapes that may write a credential's characters or another escape: `%XX` (URLs, any case), `\uXXXX`, `\xXX`,
 * `\\` and `\/` (JSON and script strings), `&#NN;` and `&#xNN;` (HTML). Other backslash escapes (`\n`, `\"`) write
 * no such character, so a text with only those is searched as it is. A run of `\\` is one match, as the pairs it is
 * made of would be read one after another: a text of 40,000 backslashes is not 20,000 calls a round.
 */
const escape = /((?:\\\\)+)|%([0-9a-f]{2})|\\u([0-9a-f]{4})|\\x([0-9a-f]{2})|\\(\/)|&#(?:x([0-9a-f]{1,6})|(\d{1,7}));/gi;

/**
 * The one search most texts get (a journal entry of a few kilobytes is masked at every request): the start of an
 * escape, or a prefix followed by one of its characters (a masked key, `dk_test_…wxyz`, is not). Only a text it
 * finds something in is read further.
 */
const worthReading = new RegExp([String.raw`%[0-9a-f]{2}|\\[ux\\/]|&#`, ...kinds.map((kind) => `(?:${kind.prefix})${kind.characters}`)].join('|'), 'i');

/**
 * The text with every API key and webhook secret in it masked; the same text when it holds none. Each is shown as
 * its kind shows one, or as `shownAs` when given (a URL's `***`, which keeps it a URL).
 */
export function maskCredentials(text: string, shownAs?: string): string {
  if (!worthReading.test(text)) return text;
  // Read once to look, and again, noting where each character came from, only when something was found.
  if (!maskable.test(decode(text).text)) return text;
  const read = decode(text, true);
  let result = '';
  let kept = 0;
  credential.lastIndex = 0;
  for (let found = credential.exec(read.text); found; found = credential.exec(read.text)) {
    const kind = kinds.findIndex((_, index) => found?.[2 * index + 1] !== undefined);
    const characters = found[2 * kind + 2] ?? '';
    // A prefix alone holds nothing secret (and a credential already masked is left as it is).
    if (characters.length === 0) continue;
    const definition = kinds[kind] as CredentialKind;
    result += text.slice(kept, read.starts[found.index]) + (shownAs ?? definition.shown(found[2 * kind + 1] as string, characters, characters.length >= definition.minLength));
    kept = read.starts[found.index + found[0].length] as number;
  }
  return result + text.slice(kept);
}

/**
 * A URL as logs, journals and health show one: every query value replaced by `***` (receivers and upstreams often
 * take a token there), a user and a password too, and any key or secret anywhere in it (a path, a host), so that it
 * stays a URL. One that does not parse loses its whole query.
 */
export function maskUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return maskCredentials(raw.replace(/\?.*$/, '?***'), '***');
  }
  // Written again only when something in it must go: a URL shown is otherwise the one given (`http://host:1`, no `/`).
  if (url.username === '' && url.password === '' && url.search === '') return maskCredentials(raw, '***');
  if (url.username !== '') url.username = '***';
  if (url.password !== '') url.password = '***';
  for (const name of [...url.searchParams.keys()]) url.searchParams.set(name, '***');
  return maskCredentials(url.toString().replace(/%2A%2A%2A/g, '***'), '***');
}

/** Whether the text holds an API key or a webhook secret, or the start of one (a prefix alone counts). */
export function holdsCredential(text: string): boolean {
  credential.lastIndex = 0;
  return credential.test(decode(text).text);
}

/**
 * The text with its escapes undone, again and again (at most `maxDecodings` times) while some are left; with
 * `track`, where each character of the result starts in the text (one more entry: the text's length). Untracked, a
 * round is one native pass (`replace`); tracked, one pass of `exec` that carries each kept character's start along.
 */
function decode(text: string, track = false): { text: string; starts: ArrayLike<number> } {
  let current = text;
  let starts = new Int32Array(track ? text.length + 1 : 0);
  for (let index = 0; index < starts.length; index += 1) starts[index] = index;
  for (let round = 0; round < maxDecodings; round += 1) {
    if (!track) {
      // Every escape is two characters or more and writes one: a round that shortens nothing found none.
      const next = current.replace(escape, (...found) => characterOf(found as unknown as RegExpExecArray));
      if (next.length === current.length) break;
      current = next;
      continue;
    }
    const pieces: string[] = [];
    const nextStarts: number[] = [];
    let copied = 0;
    escape.lastIndex = 0;
    for (let found = escape.exec(current); found; found = escape.exec(current)) {
      const written = characterOf(found);
      pieces.push(current.slice(copied, found.index), written);
      for (let index = copied; index < found.index; index += 1) nextStarts.push(starts[index] as number);
      // Each character written starts where its escape does (a run of pairs: each its pair).
      const step = found[1] === undefined ? 0 : 2;
      for (let index = 0; index < written.length; index += 1) nextStarts.push(starts[found.index + index * step] as number);
      copied = found.index + found[0].length;
    }
    if (copied === 0) break;
    pieces.push(current.slice(copied));
    for (let index = copied; index <= current.length; index += 1) nextStarts.push(starts[index] as number);
    starts = Int32Array.from(nextStarts);
    current = pieces.join('');
  }
  return { text: current, starts };
}

/**
 * The character an escape writes, as one UTF-16 unit (a byte of `%XX` as the character of that number): one past
 * U+FFFF as U+FFFD, which takes one unit as well, since no credential is written with such characters.
 */
function characterOf(found: RegExpExecArray): string {
  const [, pairs, percent, unicode, hex, slash, entityHex, entityDecimal] = found;
  if (pairs !== undefined) return '\\'.repeat(pairs.length / 2);
  if (slash !== undefined) return slash;
  const code = parseInt(percent ?? unicode ?? hex ?? entityHex ?? (entityDecimal as string), entityDecimal === undefined ? 16 : 10);
  return code <= 0xffff ? String.fromCharCode(code) : '\uFFFD';
}
