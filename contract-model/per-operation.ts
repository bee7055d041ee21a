/** Builds each operation's value on first use and keeps it: start-up does not pay for operations never called. */
import type { ContractOperation } from './operations.ts';

export function perOperation<Operation extends ContractOperation, T>(
  operations: readonly Operation[],
  build: (operation: Operation) => T,
): (operationId: string) => T | undefined {
  const byId = new Map(operations.map((op) => [op.operationId, op]));
  const built = new Map<string, T>();
  return (operationId) => {
    // One map read on the hot path, once the value is built.
    const cached = built.get(operationId);
    if (cached !== undefined) return cached;
    const operation = byId.get(operationId);
    if (!operation) return undefined;
    const value = build(operation);
    built.set(operationId, value);
    return value;
  };
}
