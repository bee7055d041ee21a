/**
 * Which target the suite runs against, read from the environment. Without `CONTRACT_BASE_URL` the suite starts
 * the mock itself; with it, the target is whatever that URL serves (a sandbox, or a mock someone started), and
 * nothing outside the contract is used on it. Besides the URL and key every run reads, the suite takes a second
 * partner's key, a webhook receiver and a pace.
 */
import { checkSandboxKey, envValue, readTargetVariables, TargetConfigError } from './target-variables.ts';

export interface ExternalTargetEnv {
  baseUrl: string;
  apiKey: string;
  apiKey2: string | undefined;
  webhook: { url: string; secret: string; listenPort: number; listenHost: string } | undefined;
  /** Variables that are unset and what is skipped because of it, for the run's report. */
  notes: string[];
  maxRequestsPerSecond: number | null;
}

/** `undefined` when no external target is named (the suite then starts the mock). */
export function readExternalTarget(env: NodeJS.ProcessEnv): ExternalTargetEnv | undefined {
  const value = (name: string) => envValue(env, name);
  const target = readTargetVariables(env);
  if (target === undefined) return undefined;
  const { baseUrl, apiKey } = target;
  const apiKey2 = value('CONTRACT_API_KEY_2');
  if (apiKey2 !== undefined) checkSandboxKey('CONTRACT_API_KEY_2', apiKey2);
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
  return { baseUrl, apiKey, apiKey2, webhook, notes, maxRequestsPerSecond: pace === 0 ? null : pace };
}
