/**
 * The facts the client needs at run time, read from the bundled contract rather than copied, so that a
 * regenerated `generated/openapi.json` is picked up without touching the client: the webhook event types, and
 * which operations take parameters or a body (which decides how a named method reads its arguments).
 */
import bundle from '../generated/openapi.json' with { type: 'json' };

interface ParameterObject {
  name: string;
  in: string;
}
type ParameterOrRef = ParameterObject | { $ref: string };

interface ContractView {
  paths: Record<string, Record<string, { parameters?: ParameterOrRef[]; requestBody?: unknown }>>;
  webhooks: Record<string, unknown>;
  components: { parameters: Record<string, ParameterObject> };
}

const contract = bundle as unknown as ContractView;

/** The event types the contract defines, i.e. the keys of its `webhooks`. */
export const contractWebhookEventTypes: readonly string[] = Object.freeze(Object.keys(contract.webhooks));

export interface OperationShape {
  /** Names of the path parameters, in the order of the template. */
  pathParameters: readonly string[];
  /** Whether the operation takes path or query parameters (header ones are supplied by the client). */
  takesParameters: boolean;
  takesBody: boolean;
}

export function operationShape(method: string, path: string): OperationShape {
  const operation = contract.paths[path]?.[method];
  if (!operation) throw new Error(`The contract has no operation ${method.toUpperCase()} ${path}.`);
  const parameters = (operation.parameters ?? []).map(resolveParameter);
  return {
    pathParameters: parameters.filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name),
    takesParameters: parameters.some((parameter) => parameter.in === 'path' || parameter.in === 'query'),
    takesBody: operation.requestBody !== undefined,
  };
}

function resolveParameter(parameter: ParameterOrRef): ParameterObject {
  if (!('$ref' in parameter)) return parameter;
  const name = parameter.$ref.replace('#/components/parameters/', '');
  const resolved = contract.components.parameters[name];
  if (!resolved) throw new Error(`The contract's ${parameter.$ref} does not resolve.`);
  return resolved;
}
