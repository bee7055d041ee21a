/** Finds the contract operation for a method and path, or says why there is none (404 or 405). */
import type { ContractOperation } from './operations.ts';

export type RouteMatch<Operation extends ContractOperation = ContractOperation> =
  | { kind: 'operation'; operation: Operation; pathParams: Record<string, string> }
  | { kind: 'not-found' }
  | { kind: 'method-not-allowed'; allow: string[] };

export type Router<Operation extends ContractOperation = ContractOperation> = (method: string, pathname: string) => RouteMatch<Operation>;

interface Template<Operation> {
  pattern: RegExp;
  names: string[];
  /** One character a segment, `0` static and `1` templated: sorts the more specific template first. */
  shape: string;
  byMethod: Map<string, Operation>;
}

export function createRouter<Operation extends ContractOperation>(operations: readonly Operation[]): Router<Operation> {
  // Static paths (most hot ones) are a single map lookup; templated ones are tried in order.
  const statics = new Map<string, Map<string, Operation>>();
  const templates = new Map<string, Template<Operation>>();
  for (const operation of operations) {
    const names = [...operation.pathTemplate.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
    if (names.length === 0) {
      const byMethod = statics.get(operation.pathTemplate) ?? new Map<string, Operation>();
      byMethod.set(operation.method, operation);
      statics.set(operation.pathTemplate, byMethod);
      continue;
    }
    const template = templates.get(operation.pathTemplate) ?? {
      pattern: new RegExp(`^${operation.pathTemplate.split(/\{[^}]+\}/).map(escapeRegExp).join('([^/]+)')}$`),
      names,
      shape: operation.pathTemplate
        .split('/')
        .map((segment) => (segment.includes('{') ? '1' : '0'))
        .join(''),
      byMethod: new Map<string, Operation>(),
    };
    template.byMethod.set(operation.method, operation);
    templates.set(operation.pathTemplate, template);
  }
  // Where two templates match one path, a static segment beats a templated one at the first place they differ
  // (`/a/b/{id}` over `/a/{x}/{id}`), whatever order the contract lists them in; sorted once, here.
  const orderedTemplates = [...templates.values()].sort((a, b) => (a.shape < b.shape ? -1 : a.shape > b.shape ? 1 : 0));

  return (method, pathname) => {
    const staticMatch = statics.get(pathname);
    if (staticMatch) return pick(staticMatch, method, {});
    for (const template of orderedTemplates) {
      const match = template.pattern.exec(pathname);
      if (!match) continue;
      const pathParams: Record<string, string> = {};
      template.names.forEach((name, index) => {
        pathParams[name] = safeDecode(match[index + 1] as string);
      });
      return pick(template.byMethod, method, pathParams);
    }
    return { kind: 'not-found' };
  };
}

function pick<Operation extends ContractOperation>(
  byMethod: Map<string, Operation>,
  method: string,
  pathParams: Record<string, string>,
): RouteMatch<Operation> {
  const operation = byMethod.get(method) ?? (method === 'HEAD' ? byMethod.get('GET') : undefined);
  if (operation) return { kind: 'operation', operation, pathParams };
  return { kind: 'method-not-allowed', allow: [...byMethod.keys()] };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
