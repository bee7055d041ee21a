/**
 * JSON text as the API reads it, a request's body or a seed file: UTF-8 (RFC 8259) and I-JSON (RFC 7493), or
 * refused with what is wrong and where. Bytes that encode no character are refused rather than read as U+FFFD; a
 * string holding a lone surrogate (`"\ud800"`, an escape standing for half a character) is refused alike, being the
 * same broken text written another way, which could be neither filed nor sent back as UTF-8; and a key may appear
 * once in an object, or the last value would win and a body whose first `email` is invalid would pass.
 *
 * A key written with an escape (`"\""`, `"em\u0061il"`) is read here, not by JSON.parse: V8's JSON.parse (Node 24,
 * nodejs/node#63785) can read such a key as another one it met before (`"\""` as `"\\"` once some text had a `\\`
 * key), so one partner's body could change how the next one's keys read.
 */
import { createScanner } from 'jsonc-parser';

/** A surrogate without its pair: a high one not followed by a low one, or a low one not after a high one. */
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// Text decoded from UTF-8 holds a surrogate only where an escape wrote one: without such an escape, none to look for.
const surrogateEscape = /\\u[dD][89a-fA-F]/;

export type JsonText = { kind: 'json'; value: unknown } | { kind: 'malformed'; problem: string };

// Fatal: a byte sequence that is not UTF-8 (a stray byte, an overlong form, an encoded surrogate) is refused rather
// than read as U+FFFD. A byte order mark is kept, so that JSON.parse refuses it as before.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function readJsonText(raw: Uint8Array): JsonText {
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    return { kind: 'malformed', problem: 'it is not UTF-8 (a byte sequence that encodes no character)' };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { kind: 'malformed', problem: (error as Error).message };
  }
  // Reading token by token costs several times JSON.parse: it is done only where a key is escaped, a key may be
  // repeated or a surrogate is escaped, which one pass over the text, a count and a regular expression tell.
  const keys = keysInText(text);
  if (!keys.escaped && !surrogateEscape.test(text) && keys.count === keysInValue(value)) return { kind: 'json', value };
  return readByTokens(text);
}

/**
 * The keys the text writes, for text JSON.parse accepted: each string followed by a colon; and whether one of them
 * holds an escape. The parsed value holds fewer keys exactly when one is repeated in an object (the last one wins).
 */
function keysInText(text: string): { count: number; escaped: boolean } {
  let count = 0;
  let escaped = false;
  const length = text.length;
  for (let index = 0; index < length; index += 1) {
    if (text.charCodeAt(index) !== 0x22) continue;
    // To the closing quote, past escapes.
    let escapes = false;
    for (index += 1; index < length; index += 1) {
      const code = text.charCodeAt(index);
      if (code === 0x5c) {
        escapes = true;
        index += 1;
      } else if (code === 0x22) break;
    }
    let next = index + 1;
    while (next < length && isJsonSpace(text.charCodeAt(next))) next += 1;
    if (text.charCodeAt(next) === 0x3a) {
      count += 1;
      escaped ||= escapes;
    }
  }
  return { count, escaped };
}

const isJsonSpace = (code: number) => code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;

/** The own keys of every object in a parsed value, walked without recursion (a body may nest 100 000 deep). */
function keysInValue(value: unknown): number {
  let keys = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const node = pending.pop();
    if (node === null || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      for (const item of node) if (item !== null && typeof item === 'object') pending.push(item);
      continue;
    }
    // Own keys only: a `for … in` would count what a prototype adds too.
    const names = Object.keys(node);
    keys += names.length;
    for (const name of names) {
      const child = (node as Record<string, unknown>)[name];
      if (child !== null && typeof child === 'object') pending.push(child);
    }
  }
  return keys;
}

/**
 * The value of text JSON.parse has accepted, read token by token, or its first string with a lone surrogate or key
 * repeated within one object, with its JSON Pointer. The scanner of `jsonc-parser` decodes escapes (`"\u0065mail"` is
 * `email`) and gives the tokens; a stack of the open objects and arrays tells a key from a value. No recursion, so a
 * body nested 100 000 deep is no problem. Keys are checked as they come, so a pointer never holds a lone surrogate.
 */
function readByTokens(text: string): JsonText {
  interface Container {
    value: Record<string, unknown> | unknown[];
    /** The keys seen so far, for an object; `undefined` for an array. */
    keys: Set<string> | undefined;
    /** The key or index of the member being read. */
    at: string | number;
    /** In an object, whether the next string is a key. */
    expectKey: boolean;
  }
  const stack: Container[] = [];
  let root: unknown;
  const pointer = (depth = stack.length) => stack.slice(0, depth).map((container) => `/${String(container.at).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
  const place = (at: string) => (at === '' ? 'the top' : at);
  const whole = surrogateEscape.test(text) ? (value: string) => !loneSurrogate.test(value) : () => true;
  const add = (value: unknown) => {
    const top = stack[stack.length - 1];
    if (!top) root = value;
    else if (top.keys) Object.defineProperty(top.value, top.at, { value, writable: true, enumerable: true, configurable: true });
    else (top.value as unknown[]).push(value);
  };
  const scanner = createScanner(text, true);
  // The text is valid JSON: a token's first character tells what it is (the scanner's kinds are a const enum, which
  // isolated modules cannot read), and the end is the token that starts past the text.
  for (scanner.scan(); scanner.getTokenOffset() < text.length; scanner.scan()) {
    const top = stack[stack.length - 1];
    const first = text[scanner.getTokenOffset()] as string;
    switch (first) {
      case '{':
      case '[': {
        // Defined as a data property even where the key is `__proto__`, as JSON.parse does.
        const value = first === '{' ? {} : [];
        add(value);
        stack.push(first === '{' ? { value, keys: new Set(), at: '', expectKey: true } : { value, keys: undefined, at: 0, expectKey: false });
        break;
      }
      case '}':
      case ']':
        stack.pop();
        break;
      case ',':
        if (top?.keys) top.expectKey = true;
        else if (top) top.at = (top.at as number) + 1;
        break;
      case ':':
        break;
      case '"': {
        const value = scanner.getTokenValue();
        if (top?.keys && top.expectKey) {
          if (!whole(value)) return { kind: 'malformed', problem: `the key ${JSON.stringify(value)} at ${place(pointer(stack.length - 1))} holds a lone surrogate, half of a character; text must be whole characters (I-JSON)` };
          top.at = value;
          top.expectKey = false;
          if (top.keys.has(value)) return { kind: 'malformed', problem: `the key ${JSON.stringify(value)} appears twice in one object, at ${pointer()}; a key may appear once` };
          top.keys.add(value);
        } else if (!whole(value)) {
          // JSON.stringify writes a lone surrogate as an escape, so the message stays text.
          return { kind: 'malformed', problem: `the string at ${place(pointer())} holds a lone surrogate, half of a character (${JSON.stringify(value)}); text must be whole characters (I-JSON)` };
        } else add(value);
        break;
      }
      case 't':
        add(true);
        break;
      case 'f':
        add(false);
        break;
      case 'n':
        add(null);
        break;
      default:
        // A number, read as JSON.parse reads it.
        add(Number(scanner.getTokenValue()));
        break;
    }
  }
  return { kind: 'json', value: root };
}
