/**
 * The streams of one kind a scope (a partner, or every partner without a key) may hold open at once: a console tab
 * each, a few more for scripts. A stream is counted once it starts, for as long as it lasts: one the server refuses
 * after its handler (past the process-wide cap, http/event-streams.ts) never takes a place.
 */
import { ApiError } from './api-error.ts';

export interface Scope {
  /** A partner's id, or `*` for every partner's. */
  id: string;
  partner: boolean;
}

export interface StreamsPerScope {
  /** 409 E_STREAM_LIMIT when the scope has as many open as it may. */
  refuseWhenFull(scope: Scope): void;
  /** Counts a stream that started until `closed` aborts. */
  started(scope: Scope, closed: AbortSignal): void;
}

export function streamsPerScope(max: number, kind: string): StreamsPerScope {
  const openIn = new Map<string, number>();
  return {
    refuseWhenFull(scope) {
      if ((openIn.get(scope.id) ?? 0) < max) return;
      throw new ApiError(409, 'E_STREAM_LIMIT', `${scope.partner ? 'This partner has' : 'Every-partner streams have'} ${max} ${kind} streams open already: close one first.`);
    },
    started(scope, closed) {
      if (closed.aborted) return;
      openIn.set(scope.id, (openIn.get(scope.id) ?? 0) + 1);
      closed.addEventListener(
        'abort',
        () => {
          const left = (openIn.get(scope.id) ?? 1) - 1;
          if (left > 0) openIn.set(scope.id, left);
          else openIn.delete(scope.id);
        },
        { once: true },
      );
    },
  };
}
