/**
 * A request cut short, whatever carried it: its client left before its body was whole (`RequestAborted`, which the
 * pipeline journals as 499), or the transport answered it on its own meanwhile (a `Refusal`: broken chunk framing,
 * too slow; see client-error.ts), which the journal records instead of the pipeline's answer.
 */
import type { ErrorCode } from '../../generated/openapi.js';

/** nginx's "client closed request": the client left before its request was whole, so nobody got an answer. */
export const clientClosedRequest = 499;

/**
 * Thrown by a step reading a request whose stream ended before its body did: the client left (or its connection was
 * refused on the socket, see `refusalOf`). Nobody waits for an answer, so none is written.
 */
export class RequestAborted extends Error {
  override name = 'RequestAborted';
  constructor(readonly reason: string) {
    super(`the request ended before its body was complete: ${reason}`);
  }
}

export interface Refusal {
  status: number;
  code: ErrorCode;
  message: string;
}

