/** Finds the contract operation: an unknown path is 404, a known path with another method 405 with `Allow`. */
import { ApiError } from '../http/api-error.ts';
import type { Step } from './pipeline.ts';
import { respond } from './reply.ts';
import type { RouteMatch } from '../../contract-model/router.ts';

export function routeRequest(route: (method: string, pathname: string) => RouteMatch): Step {
  return (exchange, next) => {
    const match = route(exchange.method, exchange.url.pathname);
    if (match.kind === 'not-found') {
      respond(exchange, new ApiError(404, 'E_NOT_FOUND', `No operation at ${exchange.url.pathname}.`));
      return;
    }
    if (match.kind === 'method-not-allowed') {
      respond(exchange, new ApiError(405, 'E_METHOD_NOT_ALLOWED', `${exchange.method} is not allowed here; allowed: ${match.allow.join(', ')}.`, undefined, { allow: match.allow.join(', ') }));
      return;
    }
    exchange.operation = match.operation;
    exchange.pathParams = match.pathParams;
    return next();
  };
}
