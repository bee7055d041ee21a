/**
 * The bytes of request bodies the process holds at once, across every connection and both channels (API and
 * admin). Each body is bounded on its own (1 MiB, a seed 16 MiB), but a thousand clients each holding a body just
 * under the limit, or two hundred stalled seeds, would hold gigabytes: past this budget a new body is refused at
 * once with 503 and Retry-After (the client retries when others are done), and memory stays bounded whatever
 * clients do. A body counts as its bytes arrive (what is announced but not sent holds nothing) until its answer
 * is written: the bytes stay held while the request is handled and journaled.
 */
export interface BodyBudget {
  /** Takes `bytes` from the budget; false (and nothing taken) when they do not fit beside what is held. */
  take(bytes: number): boolean;
  give(bytes: number): void;
  /** Bytes held now. */
  readonly held: number;
  readonly limit: number;
}

export function createBodyBudget(limit: number): BodyBudget {
  let held = 0;
  return {
    take(bytes) {
      if (held + bytes > limit) return false;
      held += bytes;
      return true;
    },
    give(bytes) {
      held = Math.max(0, held - bytes);
    },
    get held() {
      return held;
    },
    limit,
  };
}

/** No bound: for a pipeline built alone (a test, a tool). */
export const unboundedBodyBudget: BodyBudget = createBodyBudget(Number.POSITIVE_INFINITY);
