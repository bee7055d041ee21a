/**
 * What a caller may need from a successful response besides its payload: the correlation id to quote to
 * support, and for a create, the key it was sent with and whether the answer is a replay of an earlier one
 * (`Idempotent-Replayed: true`: nothing was created now).
 */
import type { IdempotentReplayedHeader } from './contract-types.ts';
import { attemptsOf } from './retrying-fetch.ts';

export interface ResponseMeta {
  status: number;
  /** The response's `x-request-id` (the one sent, echoed back). */
  requestId: string | undefined;
  /** The `Idempotency-Key` sent with a create; `undefined` for other operations. */
  idempotencyKey: string | undefined;
  /** `Idempotent-Replayed` of a create; `undefined` when the response did not carry it. */
  idempotentReplayed: boolean | undefined;
  /** Attempts it took, retries included. */
  attempts: number;
  /** The response itself, for any other header (`RateLimit-Remaining`…); its body has been read. */
  response: Response;
}

export interface PartnerResult<T> {
  payload: T;
  meta: ResponseMeta;
}

export function readResponseMeta(
  response: Response,
  sent: { requestId: string | undefined; idempotencyKey: string | undefined },
): ResponseMeta {
  const replayed = response.headers.get('idempotent-replayed') as IdempotentReplayedHeader | null;
  return {
    status: response.status,
    requestId: response.headers.get('x-request-id') ?? sent.requestId,
    idempotencyKey: sent.idempotencyKey,
    idempotentReplayed: replayed === 'true' ? true : replayed === 'false' ? false : undefined,
    attempts: attemptsOf(response),
    response,
  };
}
