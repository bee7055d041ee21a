/**
 * An answer made ready to send, the same way whatever carries it (write-answer.ts on Node's server, fetch-answer.ts as
 * a Fetch API `Response`): every header value escaped to the characters a header may carry (header-value.ts), and
 * what cannot be sent at all (a header name that is no token, a status HTTP does not have: a bug) replaced by a 500
 * that says so, under the request's id. Both transports hand back the answer as sent, so that the journal keeps what
 * the client got.
 */
import { errorAnswer, type Answer } from './answer.ts';
import type { ApiError } from './api-error.ts';
import { headerValue } from './header-value.ts';
import { validRequestId } from './request-id.ts';

/** An answer as it is sent: its header values escaped. */
export type Sendable = Answer & { finalHeaders: Record<string, string> };

/** What a transport sent: the answer as the client got it, and, when the one given could not be sent, why. */
export interface Sent {
  answer: Answer;
  /** Set when the answer given could not be written at all and a 500 went instead: what was wrong with it. */
  unwritable?: string;
}

/** A header name as HTTP has them (RFC 9110's token), the check Node's `validateHeaderName` makes. */
const token = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * The answer as it can be sent: escaped, or the 500 in its place with why (`cannotStream`: the transport has no way
 * to run a stream now, a reason to refuse one).
 */
export function readyToSend(answer: Answer, cannotStream?: string): { sendable: Sendable; unwritable?: string } {
  const given = sendable(answer);
  const unwritable = problemOf(given) ?? (given.stream ? cannotStream : undefined);
  return unwritable === undefined ? { sendable: given } : { sendable: sendable(unwritableAnswer(given, unwritable)), unwritable };
}

/** The answer with every header it sends, each value escaped as header-value.ts says, its cookies too. */
function sendable(answer: Answer): Sendable {
  const finalHeaders: Record<string, string> = Object.create(null); // `__proto__` is a name an upstream may send
  for (const [name, value] of Object.entries(answer.finalHeaders ?? answer.headers)) finalHeaders[name] = headerValue(String(value));
  return answer.setCookies?.length ? { ...answer, finalHeaders, setCookies: answer.setCookies.map(headerValue) } : { ...answer, finalHeaders };
}

/** Why an answer cannot be written as it is, if it cannot: what escaping cannot mend. */
function problemOf(answer: Sendable): string | undefined {
  if (!Number.isInteger(answer.status) || answer.status < 100 || answer.status > 599) return `its status ${String(answer.status)} is not an HTTP status`;
  for (const name of Object.keys(answer.finalHeaders)) if (!token.test(name)) return `its header name ${JSON.stringify(name)} is not a token`;
  return undefined;
}

/** The 500 sent in place of an answer that cannot be written, under its request id. */
function unwritableAnswer(answer: Sendable, problem: string): Answer {
  const id = answer.finalHeaders['x-request-id'];
  const requestId = id !== undefined && validRequestId.test(id) ? id : 'unknown';
  const replacement = errorAnswer(500, { code: 'E_INTERNAL', message: `The answer could not be written: ${problem}.`, requestId });
  replacement.finalHeaders = { ...replacement.headers, 'x-request-id': requestId };
  return replacement;
}

/**
 * A transport's way to send an answer: what the pipeline hands every answer to (send-answer.ts), knowing not which
 * transport it is. Node's server writes it on the connection (write-answer.ts), the fetch adapter makes it a
 * `Response` (fetch-answer.ts).
 */
export interface AnswerWriter {
  /** When the transport cannot take one more stream now (its bound on open streams): the refusal to answer instead. */
  streamRefusal(context: { requestId: string; path: string }): ApiError | undefined;
  write(answer: Answer, method: string): Sent;
}
