/** The operations tagged `Sandbox` do not exist in production: 404, as for any unknown path. */
import type { Environment } from '../auth/api-keys.ts';
import { ApiError } from '../http/api-error.ts';
import type { Step } from './pipeline.ts';
import { respond } from './reply.ts';

export function gateSandboxOperations(environment: Environment): Step {
  return (exchange, next) => {
    if (environment === 'production' && exchange.operation?.tags.includes('Sandbox')) {
      respond(exchange, new ApiError(404, 'E_NOT_FOUND', `No operation at ${exchange.url.pathname} in production.`));
      return;
    }
    return next();
  };
}
