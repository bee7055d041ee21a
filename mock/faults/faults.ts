/**
 * Faults armed through `/_mock/faults`, so that clients can rehearse what the mock would otherwise never do:
 * the next N requests of an operation answer one of its documented answers instead of running (a 503 to retry, a
 * 409 to render: a forced answer, forced-answers/), or are held for a while before they run (which makes a
 * concurrent retry with the same Idempotency-Key meet E_IDEMPOTENCY_KEY_IN_PROGRESS). A fault armed with a
 * partner's key applies to that partner's requests only, so developers sharing one mock do not trip each other;
 * one armed without a key applies to every partner.
 */
import type { ForcedChoice } from '../forced-answers/prefer-header.ts';
import { newId } from '../ids.ts';

export interface Fault {
  /** Its own, to disarm it by itself. */
  id: string;
  operationId: string;
  /** Answer with this documented status instead of running the operation. */
  status?: number;
  /** Answer with this documented example instead of running the operation. */
  example?: string;
  /** Hold the request this long before it runs. */
  delayMs?: number;
  /** How many requests it applies to; `null`: every one, until it is disarmed. */
  count: number | null;
  /** The partner it is scoped to; absent: every partner. */
  partnerId?: string;
  /** That partner's key, masked, to show. */
  partner?: string;
}

/** What a fault answers instead of running the operation, as a forced answer names it; none for a delay alone. */
export function choiceOf(fault: Pick<Fault, 'status' | 'example'>): ForcedChoice | undefined {
  if (fault.status === undefined && fault.example === undefined) return undefined;
  return { ...(fault.status === undefined ? {} : { code: fault.status }), ...(fault.example === undefined ? {} : { example: fault.example }) };
}

export interface FaultRegistry {
  /** Arms a fault, giving it its id. */
  arm(fault: Omit<Fault, 'id'>): Fault;
  /** Takes one use of the first fault armed for the operation that applies to the partner, if any. */
  take(operationId: string, partnerId: string | undefined): Omit<Fault, 'count'> | undefined;
  /** With a partner, its faults and the unscoped ones; without, all. */
  list(partnerId?: string): Fault[];
  /** With a partner, only its faults; without, all. */
  clear(partnerId?: string): void;
  /** Disarms one fault: with a partner, only one of its own. False when there is none such. */
  disarm(id: string, partnerId?: string): boolean;
  /**
   * Hears each change of what is armed (armed, used, disarmed), with the partner it concerns (none: every
   * partner's), until the function returned is called.
   */
  onChange(listener: (partnerId: string | undefined) => void): () => void;
}

export function createFaultRegistry(): FaultRegistry {
  let faults: Fault[] = [];
  const listeners = new Set<(partnerId: string | undefined) => void>();
  const changed = (partnerId: string | undefined) => {
    for (const listener of listeners) listener(partnerId);
  };
  const appliesTo = (fault: Fault, partnerId: string | undefined) => fault.partnerId === undefined || fault.partnerId === partnerId;
  return {
    arm(fault) {
      const armed = { ...fault, id: newId('flt') };
      faults.push(armed);
      changed(armed.partnerId);
      return { ...armed };
    },
    take(operationId, partnerId) {
      const fault = faults.find((candidate) => candidate.operationId === operationId && appliesTo(candidate, partnerId));
      if (!fault) return undefined;
      if (fault.count !== null) {
        fault.count -= 1;
        if (fault.count <= 0) faults = faults.filter((candidate) => candidate !== fault);
        changed(fault.partnerId);
      }
      const { count: _count, ...taken } = fault;
      return taken;
    },
    list: (partnerId) => faults.filter((fault) => partnerId === undefined || appliesTo(fault, partnerId)).map((fault) => ({ ...fault })),
    clear(partnerId) {
      const before = faults.length;
      faults = partnerId === undefined ? [] : faults.filter((fault) => fault.partnerId !== partnerId);
      if (faults.length < before) changed(partnerId);
    },
    disarm(id, partnerId) {
      const disarmed = faults.find((fault) => fault.id === id && (partnerId === undefined || fault.partnerId === partnerId));
      if (!disarmed) return false;
      faults = faults.filter((fault) => fault !== disarmed);
      changed(disarmed.partnerId);
      return true;
    },
    onChange(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}

