/**
 * The `Prefer` header as Prism reads it for a mock (`Prefer: code=409`, `Prefer: example=nameTaken`, both at once),
 * within RFC 7240's grammar: preferences separated by commas, parameters by semicolons (both are accepted between
 * `code` and `example`, as Prism's users write either), names without case, values bare or quoted. Preferences
 * the mock does not act on (`return=minimal`, `respond-async`, Prism's `dynamic`) are ignored, as RFC 7240 says a
 * server does with a preference it does not honour.
 */

export interface ForcedChoice {
  /** The documented status to answer with. */
  code?: number;
  /** The name of a documented example to answer with. */
  example?: string;
}

/** What the header asks for: a choice, nothing for the mock, or a problem to refuse it with. */
export type PreferReading = { kind: 'none' } | { kind: 'choice'; choice: ForcedChoice } | { kind: 'problem'; problem: string };

const none: PreferReading = Object.freeze({ kind: 'none' });

export function readPrefer(header: string | string[] | undefined): PreferReading {
  if (header === undefined) return none;
  const text = Array.isArray(header) ? header.join(',') : header;
  const choice: ForcedChoice = {};
  for (const part of text.split(/[,;]/)) {
    const at = part.indexOf('=');
    const name = (at < 0 ? part : part.slice(0, at)).trim().toLowerCase();
    const value = at < 0 ? '' : unquote(part.slice(at + 1).trim());
    if (name === 'code') {
      if (!/^[1-5][0-9][0-9]$/.test(value)) return { kind: 'problem', problem: `Prefer: code must be a status of three digits, got ${JSON.stringify(value.slice(0, 40))}.` };
      if (choice.code !== undefined && choice.code !== Number(value)) return { kind: 'problem', problem: 'Prefer names two codes; name one.' };
      choice.code = Number(value);
    } else if (name === 'example') {
      if (value === '') return { kind: 'problem', problem: 'Prefer: example needs the name of an example.' };
      if (choice.example !== undefined && choice.example !== value) return { kind: 'problem', problem: 'Prefer names two examples; name one.' };
      choice.example = value;
    }
  }
  return choice.code === undefined && choice.example === undefined ? none : { kind: 'choice', choice };
}

function unquote(value: string): string {
  return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1).replace(/\\(.)/g, '$1') : value;
}
