/**
 * Prism's HTTP engine, in process. It answers operations that have no handler from the contract's examples
 * (never firing callbacks: the contract has none, and webhooks are the mock's own), and it is the reference the
 * compiled request validators are checked against. It loads on first use, keeping start-up fast.
 */
import type { createInstance, getHttpOperationsFromSpec, IHttpRequest } from '@stoplight/prism-http';
import type { ContractDocument } from '../../contract-model/document.ts';
import type { ContractOperation } from '../../contract-model/operations.ts';
import type { Answer } from '../http/answer.ts';
import type { Exchange } from './exchange.ts';

type Prism = ReturnType<typeof createInstance>;
type PrismOperations = Awaited<ReturnType<typeof getHttpOperationsFromSpec>>;

export interface PrismVerdict {
  valid: boolean;
  violations: { path: string; code: string; message: string }[];
}

export interface ExampleResponder {
  respond(exchange: Exchange, operation: ContractOperation): Promise<Answer>;
  /** Prism's own verdict on a request, for comparison with the compiled validators. */
  validate(request: IHttpRequest): Promise<PrismVerdict>;
}

export function createPrismEngine(document: ContractDocument): ExampleResponder {
  let loaded: Promise<{ prism: Prism; operations: PrismOperations }> | undefined;
  const load = () =>
    (loaded ??= (async () => {
      // Imported here: Prism takes most of a second to load, and most runs never need it.
      const [{ createInstance, getHttpOperationsFromSpec }, { createLogger }] = await Promise.all([
        import('@stoplight/prism-http'),
        import('@stoplight/prism-core'),
      ]);
      const operations = await getHttpOperationsFromSpec(structuredClone(document));
      const prism = createInstance(
        { checkSecurity: false, validateRequest: true, validateResponse: false, errors: false, upstreamProxy: undefined, isProxy: false, mock: { dynamic: false } },
        { logger: createLogger('prism', { level: 'silent' }) },
      );
      return { prism, operations };
    })());

  const run = async (request: IHttpRequest) => {
    const { prism, operations } = await load();
    const result = await prism.request(request, operations)();
    if (result._tag === 'Left') throw result.left;
    return result.right;
  };

  return {
    async respond(exchange, operation) {
      const output = await run(toPrismRequest(exchange));
      const status = output.output.statusCode;
      const json = output.output.body;
      const contentType = operation.responses.get(String(status))?.content.keys().next().value ?? 'application/json';
      return { status, headers: { 'content-type': contentType }, body: typeof json === 'string' ? json : JSON.stringify(json), json };
    },
    async validate(request) {
      const output = await run(request);
      const violations = output.validations.input
        .filter((diagnostic) => diagnostic.severity === 0)
        .map((diagnostic) => ({ path: (diagnostic.path ?? []).join('/'), code: String(diagnostic.code), message: diagnostic.message }));
      return { valid: violations.length === 0, violations };
    },
  };
}

export function toPrismRequest(exchange: Exchange): IHttpRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(exchange.request.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return {
    method: exchange.method.toLowerCase() as IHttpRequest['method'],
    url: { path: exchange.url.pathname, query: Object.fromEntries(exchange.url.searchParams) },
    headers,
    body: exchange.body.kind === 'json' ? exchange.body.value : undefined,
  };
}
