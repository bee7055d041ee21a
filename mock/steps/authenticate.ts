/**
 * Operations that take the API key refuse a missing one (E_AUTH_MISSING) and every invalid one (E_AUTH_INVALID).
 * Where the key is optional (admin routes that act for every partner, or for one), a key that is sent is checked
 * the same way, so that a typo is told rather than silently acting for everyone.
 */
import type { KeyChecker } from '../auth/api-keys.ts';
import { ApiError } from '../http/api-error.ts';
import { respond } from '../http/exchange.ts';
import type { Step } from '../http/pipeline.ts';

const messages = {
  E_AUTH_MISSING: 'The Authorization header is missing; send your API key.',
  E_AUTH_INVALID: 'The API key is not valid for this environment.',
} as const;

export function authenticate(keys: KeyChecker): Step {
  return (exchange, next) => {
    const use = exchange.operation?.apiKey ?? 'none';
    const authorization = exchange.request.headers.authorization;
    if (use === 'none' || (use === 'optional' && authorization === undefined)) return next();
    const verdict = keys.check(authorization);
    if (!verdict.ok) {
      respond(exchange, new ApiError(401, verdict.code, messages[verdict.code]));
      return;
    }
    exchange.partner = verdict.partner;
    return next();
  };
}
