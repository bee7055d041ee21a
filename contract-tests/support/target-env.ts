/**
 * Which target the suite runs against, read from the environment. Without `CONTRACT_BASE_URL` the suite starts
 * the mock itself; with it, the target is whatever that URL serves (a sandbox, or a mock someone started), and
 * nothing outside the contract is used on it.
 */
export class TargetConfigError extends Error {
  override name = 'TargetConfigError';
}

export interface ExternalTargetEnv {
  baseUrl: string;
  apiKey: string;
  apiKey2: string | undefined;
  webhook: { url: string; secret: string; listenPort: number; listenHost: string } | undefined;
  /** Variables that are unset and what is skipped because of it, for the run's report. */
  notes: string[];
  maxRequestsPerSecond: number | null;
}

const apiKeyFormat = /^dk_(test|live)_[A-Za-z0-9]{24,64}$/;

/** The variables `npm run test:sandbox` needs, with what each is for. */
export const requiredSandboxVariables = [
  ['CONTRACT_BASE_URL', 'the sandbox base URL, e.g. https://sandbox.api.partner-formation.example'],
  ['CONTRACT_API_KEY', 'a dk_test_ key of the partner the suite acts as'],
] as const;

/** `undefined` when no external target is named (the suite then starts the mock). */
export function readExternalTarget(env: NodeJS.ProcessEnv): ExternalTargetEnv | undefined {
  const value = (name: string) => (env[name]?.trim() ? env[name]?.trim() : undefined);
  const baseUrl = value('CONTRACT_BASE_URL');
  if (baseUrl === undefined) return undefined;

  const missing = requiredSandboxVariables.filter(([name]) => value(name) === undefined);
  if (missing.length > 0) {
    throw new TargetConfigError(
      `CONTRACT_BASE_URL is set, so the suite targets it, but ${missing.map(([name, what]) => `${name} (${what})`).join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not set.`,
    );
  }
  try {
    const url = new URL(baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    throw new TargetConfigError(`CONTRACT_BASE_URL must be an absolute http(s) URL; it is ${JSON.stringify(baseUrl)}.`);
  }
  const apiKey = value('CONTRACT_API_KEY') as string;
  const apiKey2 = value('CONTRACT_API_KEY_2');
  for (const [name, key] of [['CONTRACT_API_KEY', apiKey], ['CONTRACT_API_KEY_2', apiKey2]] as const) {
    if (key === undefined) continue;
    if (!apiKeyFormat.test(key)) {
      throw new TargetConfigError(`${name} must be a raw key: dk_test_ followed by 24 to 64 letters and digits, no "Bearer ".`);
    }
    // The suite creates customers and formations: against production they would be filed and charged.
    if (key.startsWith('dk_live_')) {
      throw new TargetConfigError(`${name} is a production (dk_live_) key. The suite creates formations; run it only against a sandbox, with dk_test_ keys.`);
    }
  }
  if (apiKey2 !== undefined && apiKey2 === apiKey) {
    throw new TargetConfigError('CONTRACT_API_KEY_2 must be the key of another partner than CONTRACT_API_KEY.');
  }

  const notes: string[] = [];
  if (apiKey2 === undefined) notes.push('CONTRACT_API_KEY_2 is not set: the isolation checks between partners are skipped.');

  const webhookUrl = value('CONTRACT_WEBHOOK_URL');
  const webhookSecret = value('CONTRACT_WEBHOOK_SECRET');
  let webhook: ExternalTargetEnv['webhook'];
  if (webhookUrl === undefined || webhookSecret === undefined) {
    if (webhookUrl !== undefined || webhookSecret !== undefined) {
      throw new TargetConfigError('Set both CONTRACT_WEBHOOK_URL and CONTRACT_WEBHOOK_SECRET, or neither.');
    }
    notes.push('CONTRACT_WEBHOOK_URL and CONTRACT_WEBHOOK_SECRET are not set: webhook deliveries are not checked.');
  } else {
    let parsed: URL;
    try {
      parsed = new URL(webhookUrl);
    } catch {
      throw new TargetConfigError(`CONTRACT_WEBHOOK_URL must be an absolute URL; it is ${JSON.stringify(webhookUrl)}.`);
    }
    if (!/^whsec_[A-Za-z0-9+/=]+$/.test(webhookSecret)) {
      throw new TargetConfigError('CONTRACT_WEBHOOK_SECRET must be the endpoint signing secret, whsec_ followed by base64.');
    }
    const portText = value('CONTRACT_WEBHOOK_LISTEN_PORT') ?? (parsed.port || (parsed.protocol === 'https:' ? '443' : '80'));
    const listenPort = Number(portText);
    if (!/^\d+$/.test(portText) || listenPort < 1 || listenPort > 65535) {
      throw new TargetConfigError(`CONTRACT_WEBHOOK_LISTEN_PORT must be a port number; it is ${JSON.stringify(portText)}.`);
    }
    webhook = { url: webhookUrl, secret: webhookSecret, listenPort, listenHost: value('CONTRACT_WEBHOOK_LISTEN_HOST') ?? '127.0.0.1' };
  }
  // Below the sandbox's published 25 per second, so that the suite's own bursts are not answered with 429.
  const paceText = value('CONTRACT_MAX_RPS') ?? '20';
  const pace = Number(paceText);
  if (!/^\d+$/.test(paceText)) {
    throw new TargetConfigError(`CONTRACT_MAX_RPS must be a whole number of requests per second (0: no limit); it is ${JSON.stringify(paceText)}.`);
  }
  return { baseUrl: baseUrl.replace(/\/+$/, ''), apiKey, apiKey2, webhook, notes, maxRequestsPerSecond: pace === 0 ? null : pace };
}
