/**
 * Webhook endpoint URLs: what makes one acceptable (an absolute http(s) URL without credentials: a password in a
 * URL ends up in logs, journals and screenshots; on a mock started with --webhook-allow, a host it lets it deliver
 * to), and how one is shown (its query values masked, since receivers often put a token there, and any API key or
 * webhook secret in it, in its path too: the URL rule of contract-model/credentials.ts).
 */
import type { AllowedTargets } from './allowed-targets.ts';

export type EndpointUrlProblem = { code: 'E_FORMAT'; message: string } | { code: 'E_INVALID'; message: string };

export function endpointUrlProblem(raw: string, allowed?: AllowedTargets): EndpointUrlProblem | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { code: 'E_FORMAT', message: 'Must be an absolute http(s) URL.' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { code: 'E_FORMAT', message: `Must be an http(s) URL, not ${url.protocol.replace(/:$/, '')}.` };
  if (url.username !== '' || url.password !== '') return { code: 'E_INVALID', message: 'Must not carry a user or password: put a token the receiver checks in a query parameter instead (logs and health show query values masked).' };
  const notAllowed = allowed?.hostProblem(url.hostname);
  if (notAllowed) return { code: 'E_INVALID', message: `This mock delivers only where it is allowed to: ${notAllowed}.` };
  return undefined;
}

/** The URL as logs, journals and health show it (contract-model/credentials.ts). */
export { maskUrl as maskEndpointUrl } from '../../contract-model/credentials.ts';
