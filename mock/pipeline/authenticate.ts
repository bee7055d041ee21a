/**
 * Operations that take the API key refuse a missing one (E_AUTH_MISSING) and every invalid one (E_AUTH_INVALID).
 * Where the key is optional (admin routes that act for every partner, or for one), a key that is sent is checked
 * the same way, so that a typo is told rather than silently acting for everyone.
 */
import { ApiError } from '../http/api-error.ts';
import type { Step } from './pipeline.ts';
import { respond } from './reply.ts';
import type { KeyChecker } from '../auth/api-keys.ts';

const messages = {
  E_AUTH_MISSING: 'The Authorization header is missing; send your API key.',
  E_AUTH_INVALID: 'The API key is not valid for this environment.',
  bearer: 'Send the raw API key, without the `Bearer` prefix: `Authorization: dk_test_…`.',
} as const;

export function authenticate(keys: KeyChecker): Step {
  return (exchange, next) => {
    const use = exchange.operation?.apiKey ?? 'none';
    const authorization = exchange.request.headers.authorization;
    if (use === 'none' || (use === 'optional' && authorization === undefined)) return next();
    const verdict = keys.check(authorization);
    if (!verdict.ok) {
      // The one mistake common enough to name: the key sent the OAuth way.
      const message = verdict.reason === 'Bearer prefix' ? messages.bearer : messages[verdict.code];
      respond(exchange, new ApiError(401, verdict.code, message));
      return;
    }
    exchange.partner = verdict.partner;
    return next();
  };
}
