/**
 * The facts the client needs at run time, generated from the bundled contract (generated/client-contract.ts)
 * rather than copied, and rather than the whole contract, which would weigh on a browser bundle: the webhook event
 * types, and which operations take parameters or a body (which decides how a named method reads its arguments).
 */
import { operationShapes, webhookEventTypes } from '../generated/client-contract.ts';

/** The event types the contract defines, i.e. the keys of its `webhooks`. */
export const contractWebhookEventTypes: readonly string[] = Object.freeze([...webhookEventTypes]);

export interface OperationShape {
  /** Names of the path parameters, in the order of the template. */
  pathParameters: readonly string[];
  /** Whether the operation takes path or query parameters (header ones are supplied by the client). */
  takesParameters: boolean;
  takesBody: boolean;
}

export function operationShape(method: string, path: string): OperationShape {
  const shape = operationShapes[`${method} ${path}`];
  if (!shape) throw new Error(`The contract has no operation ${method.toUpperCase()} ${path}.`);
  return shape;
}
