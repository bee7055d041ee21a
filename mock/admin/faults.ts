/**
 * Faults armed through `/_mock/faults`, so that clients can rehearse what the mock would otherwise never do:
 * the next N requests of an operation answer 429, 500 or 503, or are held for a while before they run (which
 * makes a concurrent retry with the same Idempotency-Key meet E_IDEMPOTENCY_KEY_IN_PROGRESS).
 */
export interface Fault {
  operationId: string;
  /** Answer with this status instead of running the operation. */
  status?: 429 | 500 | 503;
  /** Hold the request this long before it runs. */
  delayMs?: number;
  /** How many requests it applies to. */
  count: number;
}

export interface FaultRegistry {
  arm(fault: Fault): void;
  /** Takes one use of the first fault armed for the operation, if any. */
  take(operationId: string): Omit<Fault, 'count'> | undefined;
  list(): Fault[];
  clear(): void;
}

export function createFaultRegistry(): FaultRegistry {
  let faults: Fault[] = [];
  return {
    arm(fault) {
      faults.push({ ...fault });
    },
    take(operationId) {
      const fault = faults.find((candidate) => candidate.operationId === operationId);
      if (!fault) return undefined;
      fault.count -= 1;
      if (fault.count <= 0) faults = faults.filter((candidate) => candidate !== fault);
      return { operationId: fault.operationId, status: fault.status, delayMs: fault.delayMs };
    },
    list: () => faults.map((fault) => ({ ...fault })),
    clear() {
      faults = [];
    },
  };
}

/** Checks a fault sent to the admin route; returns a message when it is not one. */
export function faultProblem(body: unknown, operationIds: readonly string[]): string | undefined {
  const fault = body as Partial<Fault> | undefined;
  if (!fault || typeof fault !== 'object') return 'send a JSON object';
  if (typeof fault.operationId !== 'string' || !operationIds.includes(fault.operationId)) return `operationId must be one of ${operationIds.join(', ')}`;
  if (fault.status !== undefined && ![429, 500, 503].includes(fault.status)) return 'status must be 429, 500 or 503';
  if (fault.delayMs !== undefined && (!Number.isInteger(fault.delayMs) || fault.delayMs < 0 || fault.delayMs > 60_000)) return 'delayMs must be a whole number from 0 to 60000';
  if (fault.status === undefined && fault.delayMs === undefined) return 'give a status, a delayMs, or both';
  if (!Number.isInteger(fault.count ?? 1) || (fault.count ?? 1) < 1 || (fault.count ?? 1) > 1000) return 'count must be a whole number from 1 to 1000';
  return undefined;
}
