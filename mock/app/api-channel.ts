/**
 * The API's channel: the steps every API request walks, in order, and how its answers are finalised (checked
 * against the contract, unless a partner switched checks off for its own requests) and recorded (the request
 * journal and one log line each).
 */
import type { Logger } from 'pino';
import { perOperation } from '../../contract-model/per-operation.ts';
import { compileResponseValidator } from '../../contract-model/response-validator.ts';
import { createRouter } from '../../contract-model/router.ts';
import { authenticate } from '../pipeline/authenticate.ts';
import type { MockConfig } from '../config/config.ts';
import { allowCrossOrigin } from '../cors/allow-cross-origin.ts';
import { injectFaults } from '../faults/inject-faults.ts';
import { forceAnswers } from '../forced-answers/force-answer.ts';
import { enforceIdempotency } from '../idempotency/enforce-idempotency.ts';
import { createExchangeRecorder } from '../journal/record-exchange.ts';
import { assignRequestId } from '../pipeline/assign-request-id.ts';
import { dispatch } from '../pipeline/dispatch.ts';
import { createAnswerFinaliser } from '../pipeline/finalise-answer.ts';
import { gateSandboxOperations } from '../pipeline/gate-sandbox-operations.ts';
import { composePipeline, type Step } from '../pipeline/pipeline.ts';
import { forwardToUpstream } from '../proxy/forward-to-upstream.ts';
import { createPrismEngine } from '../pipeline/prism-engine.ts';
import { readBody } from '../pipeline/read-body.ts';
import { routeRequest } from '../pipeline/route-request.ts';
import type { Channel } from '../pipeline/send-answer.ts';
import { byKeyOrAddress, limitRate } from '../rate-limit/limit-rate.ts';
import { createProcessRateBuckets } from '../rate-limit/rate-buckets.ts';
import { validateRequest } from '../pipeline/validate-request.ts';
import type { Exchange } from '../pipeline/exchange.ts';
import type { Services } from './services.ts';

/** `linkBase`: the URL of the links an answer makes, for the Host a request came with (http/own-hosts.ts). */
export function createApiChannel(config: MockConfig, logger: Logger, services: Services, linkBase: (host: string | undefined) => string): Channel {
  const baseUrl = (exchange: Exchange) => linkBase(exchange.request.headers.host);
  const { contract, operations, store, keys, compiler, requestValidatorOf } = services;
  const finalise = createAnswerFinaliser({
    validatorOf: perOperation(operations, (op) => compileResponseValidator(contract, op, compiler)),
    enabled: (exchange) => services.settings.of(exchange.partner?.id).validateResponses,
    logger,
  });
  /** How the mock answers a request itself (and, with `fallback`, where the upstream could not; faults came before). */
  const answerHere = ({ fallback }: { fallback: boolean }): Step[] => [
    // Before validation: a refused body is stored for its key like any 4xx.
    enforceIdempotency({ store, records: services.idempotency, finalise, logger }),
    validateRequest(requestValidatorOf),
    // After idempotency, so that a held request is in flight for its key, and an injected 5xx is not stored.
    ...(fallback ? [] : [injectFaults(services.faults, services.documentedAnswers)]),
    dispatch({ handlers: services.handlers, examples: !fallback && services.unhandled.length > 0 ? createPrismEngine(contract) : undefined, baseUrl, logger }),
  ];
  const run = composePipeline(
    config.upstream
      ? // Where the upstream lacks the operation or fails, and --upstream-fallback is on, the mock answers itself,
        // and refuses what the contract refuses even when the proxy forwards it (--upstream-requests forward).
        proxySteps(config, logger, services, config.upstream, requestValidatorOf, config.upstream.fallback ? answerHere({ fallback: true }) : [])
      : [
          assignRequestId,
          allowCrossOrigin({ origins: config.cors.origins, contract, operations }),
          limitRate({ perSecond: config.rateLimitPerSecond, environment: config.environment, buckets: createProcessRateBuckets(), callerOf: byKeyOrAddress(keys) }),
          routeRequest(createRouter(operations)),
          gateSandboxOperations(config.environment),
          authenticate(keys),
          readBody({ maxBytes: config.maxBodyBytes, budget: services.bodyBudget }),
          // Before the key is taken: a forced answer changes nothing and is never stored for replay.
          forceAnswers(services.documentedAnswers),
          ...answerHere({ fallback: false }),
        ],
  );
  const journal = createExchangeRecorder({ logger, journal: services.journal });
  const { recording, traffic } = services;
  return {
    run,
    finalise,
    record: recording || traffic
      ? (exchange, aborted) => {
          journal(exchange, aborted);
          recording?.observe(exchange);
          traffic?.observe(exchange, aborted);
        }
      : journal,
  };
}

/**
 * The steps of an API request when the mock is a proxy (`--upstream`): routed, its key's form checked, its body
 * read and checked against the contract as the mock would (a refusal is the mock's own 400, with the same field
 * errors), forced answers and faults applied as ever, and then forwarded. Idempotency and the operations themselves
 * are the upstream's. The published rate limit is kept here too: the proxy's own answers carry the rate-limit
 * headers the contract requires of every answer, and a client over the limit learns it without the upstream.
 */
function proxySteps(config: MockConfig, logger: Logger, services: Services, upstream: NonNullable<MockConfig['upstream']>, requestValidatorOf: Services['requestValidatorOf'], fallback: Step[]): Step[] {
  const { contract, operations, keys } = services;
  return [
    assignRequestId,
    allowCrossOrigin({ origins: config.cors.origins, contract, operations }),
    limitRate({ perSecond: config.rateLimitPerSecond, environment: config.environment, buckets: createProcessRateBuckets(), callerOf: byKeyOrAddress(keys) }),
    routeRequest(createRouter(operations)),
    authenticate(keys),
    readBody({ maxBytes: config.maxBodyBytes, budget: services.bodyBudget }),
    forceAnswers(services.documentedAnswers),
    validateRequest(requestValidatorOf, {
      // A create's refusal is stored under its Idempotency-Key, by the upstream: so a create with a key always goes
      // there, its violations noted, and a retry with the same key meets what the upstream stored.
      onViolation: (exchange) => (upstream.requests === 'forward' || (exchange.operation?.idempotent && exchange.request.headers['idempotency-key'] !== undefined) ? 'note' : 'refuse'),
    }),
    injectFaults(services.faults, services.documentedAnswers),
    forwardToUpstream({ ...upstream, logger }),
    ...fallback,
  ];
}
