/** Finds the contract operation for a method and path, or says why there is none (404 or 405). */
import type { ContractOperation } from './operations.ts';

export type RouteMatch =
  | { kind: 'operation'; operation: ContractOperation; pathParams: Record<string, string> }
  | { kind: 'not-found' }
  | { kind: 'method-not-allowed'; allow: string[] };

interface Template {
  pattern: RegExp;
  names: string[];
  byMethod: Map<string, ContractOperation>;
}

export function createRouter(operations: ContractOperation[]): (method: string, pathname: string) => RouteMatch {
  // Static paths (most hot ones) are a single map lookup; templated ones are tried in order.
  const statics = new Map<string, Map<string, ContractOperation>>();
  const templates = new Map<string, Template>();
  for (const operation of operations) {
    const names = [...operation.pathTemplate.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
    if (names.length === 0) {
      const byMethod = statics.get(operation.pathTemplate) ?? new Map<string, ContractOperation>();
      byMethod.set(operation.method, operation);
      statics.set(operation.pathTemplate, byMethod);
      continue;
    }
    const template = templates.get(operation.pathTemplate) ?? {
      pattern: new RegExp(`^${operation.pathTemplate.split(/\{[^}]+\}/).map(escapeRegExp).join('([^/]+)')}$`),
      names,
      byMethod: new Map<string, ContractOperation>(),
    };
    template.byMethod.set(operation.method, operation);
    templates.set(operation.pathTemplate, template);
  }
  const orderedTemplates = [...templates.values()];

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

function pick(byMethod: Map<string, ContractOperation>, method: string, pathParams: Record<string, string>): RouteMatch {
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
