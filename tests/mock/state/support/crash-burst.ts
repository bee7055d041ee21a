/**
 * Bursts of idempotent createCompany calls cut short by a `kill -9`, and the audit afterwards. Each create carries
 * its Idempotency-Key in the company's `description`, so every company found later names the key that made it: a
 * key whose write of the company reached the store but whose idempotency record did not shows up as two companies
 * once it is retried.
 */
import type { Company, LlcFormationRequest } from '../../../../generated/openapi.js';
import type { CallResult } from '../../support/http-call.ts';
import { llcBody, newIdempotencyKey, sleep } from '../../support/http-fixtures.ts';
import type { RunningProcess } from './mock-processes.ts';

export interface Attempt {
  key: string;
  body: LlcFormationRequest;
  /** The company a 202 named, when that answer arrived before the kill. */
  acknowledged?: string;
  /** Anything else the client saw: another status, or the connection breaking (`no answer`). */
  otherwise?: string;
}

export interface BurstOptions {
  customerId: string;
  /** The mocks the calls go to, each with `inFlightPerMock` calls in flight at all times. */
  targets: readonly RunningProcess[];
  inFlightPerMock: number;
  /** One of the targets, killed once it has answered `killAfterAnswers` calls. */
  victim: RunningProcess;
  killAfterAnswers: number;
}

/** The description a key's company is made with; within BusinessDescription's 250 characters. */
export const markerOf = (key: string): string => `Made by the crash test under Idempotency-Key ${key}`;

/**
 * Keeps creates in flight on every target until the victim is dead, and returns every create that was sent. None is
 * sent after the kill: those would only be first tries, which prove nothing.
 */
export async function burstKilledMidway(options: BurstOptions): Promise<Attempt[]> {
  const sent: Attempt[] = [];
  let answeredByVictim = 0;
  let killed: Promise<void> | undefined;
  let diedFirst: string | undefined;
  // Each worker keeps to one mock: shared out call by call, the calls would pile up on the slower mock (the one
  // just restarted, still cold) and leave few in flight on the victim.
  const worker = async (_: unknown, index: number) => {
    const target = options.targets[index % options.targets.length] as RunningProcess;
    while (!killed && !diedFirst) {
      const key = newIdempotencyKey();
      const attempt: Attempt = { key, body: llcBody(options.customerId, { description: markerOf(key) }) };
      sent.push(attempt);
      await send(target, attempt);
      if (target === options.victim && attempt.otherwise !== 'no answer') answeredByVictim += 1;
      // A victim that died on its own would never answer enough calls to be killed: the burst would go on forever.
      diedFirst ??= killed ? undefined : options.victim.exitedEarly();
      if (answeredByVictim >= options.killAfterAnswers) killed ??= options.victim.kill9();
    }
  };
  await Promise.all(Array.from({ length: options.inFlightPerMock * options.targets.length }, worker));
  if (diedFirst) throw new Error(`the mock died before it was killed: ${diedFirst}`);
  await killed;
  return sent;
}

async function send(target: RunningProcess, attempt: Attempt): Promise<void> {
  try {
    const answer = await target.call('/v1/partner/companies', { body: attempt.body, idempotencyKey: attempt.key });
    if (answer.status === 202 && answer.json?.payload?.serviceCompanyId) attempt.acknowledged = answer.json.payload.serviceCompanyId;
    else attempt.otherwise = `${answer.status} ${answer.json?.error?.code ?? ''}`.trim();
  } catch {
    attempt.otherwise = 'no answer';
  }
}

/**
 * Sends every key again with its body, a few at a time, as a client that never heard back would. A key still held by
 * a killed request answers 409 IN_PROGRESS until its lock runs out: the client waits Retry-After and tries again.
 */
export async function retryAll(mock: RunningProcess, attempts: readonly Attempt[], concurrency = 16): Promise<Map<string, CallResult>> {
  const answers = new Map<string, CallResult>();
  let next = 0;
  const worker = async () => {
    for (let attempt = attempts[next++]; attempt; attempt = attempts[next++]) answers.set(attempt.key, await retry(mock, attempt));
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return answers;
}

async function retry(mock: RunningProcess, attempt: Attempt, deadline = Date.now() + 30_000): Promise<CallResult> {
  for (;;) {
    const answer = await mock.call('/v1/partner/companies', { body: attempt.body, idempotencyKey: attempt.key });
    if (answer.json?.error?.code !== 'E_IDEMPOTENCY_KEY_IN_PROGRESS' || Date.now() > deadline) return answer;
    await sleep(Number(answer.headers.get('retry-after') ?? '1') * 1000);
  }
}

/** Every company of the customer, page after page. */
export async function companiesOf(mock: RunningProcess, customerId: string): Promise<Company[]> {
  const companies: Company[] = [];
  let cursor: string | null = null;
  do {
    const query: string = `serviceCustomerId=${customerId}&limit=100${cursor ? `&cursor=${cursor}` : ''}`;
    const page = await mock.call(`/v1/partner/companies?${query}`);
    if (page.status !== 200) throw new Error(`listing the companies answered ${page.status}: ${JSON.stringify(page.json)}`);
    companies.push(...page.json.payload.data);
    cursor = page.json.payload.nextCursor;
  } while (cursor);
  return companies;
}

export interface Audit {
  /** `key … (what its first try got) → com_…, com_…`: keys that made more than one company. */
  duplicates: string[];
  /** Acknowledged keys whose company is gone, or whose retry does not replay it. */
  lost: string[];
  /** Retries whose answer is not a company their key made (a key with two is reported under `duplicates`). */
  wrongRetries: string[];
  summary: string;
}

export function audit(attempts: readonly Attempt[], retries: ReadonlyMap<string, CallResult>, companies: readonly Company[]): Audit {
  const byMarker = new Map<string, string[]>();
  for (const company of companies) byMarker.set(company.description, [...(byMarker.get(company.description) ?? []), company.serviceCompanyId]);
  const made = (attempt: Attempt) => byMarker.get(markerOf(attempt.key)) ?? [];
  const answerOf = (attempt: Attempt) => retries.get(attempt.key) as CallResult;
  const duplicates = attempts.filter((attempt) => made(attempt).length > 1).map((attempt) => `key ${attempt.key} (${attempt.acknowledged ? `acknowledged ${attempt.acknowledged}` : attempt.otherwise}) → ${made(attempt).join(', ')}`);
  const lost = attempts.filter((attempt) => attempt.acknowledged && !replays(answerOf(attempt), attempt.acknowledged, made(attempt))).map((attempt) => `key ${attempt.key} acknowledged ${attempt.acknowledged}; now ${describe(answerOf(attempt))}, its companies: ${made(attempt).join(', ') || 'none'}`);
  const wrongRetries = attempts.filter((attempt) => !isTheOne(answerOf(attempt), made(attempt))).map((attempt) => `key ${attempt.key}: the retry ${describe(answerOf(attempt))}, its companies: ${made(attempt).join(', ') || 'none'}`);
  return { duplicates, lost, wrongRetries, summary: summarise(attempts) };
}

const companyIdOf = (answer: CallResult): string | undefined => answer.json?.payload?.serviceCompanyId;

function replays(answer: CallResult, acknowledged: string, made: readonly string[]): boolean {
  return made.includes(acknowledged) && answer.headers.get('idempotent-replayed') === 'true' && companyIdOf(answer) === acknowledged;
}

function isTheOne(answer: CallResult, made: readonly string[]): boolean {
  const id = companyIdOf(answer);
  return answer.status === 202 && id !== undefined && made.includes(id);
}

function describe(answer: CallResult): string {
  return `answers ${answer.status} ${companyIdOf(answer) ?? answer.json?.error?.code ?? ''} (Idempotent-Replayed: ${answer.headers.get('idempotent-replayed')})`;
}

function summarise(attempts: readonly Attempt[]): string {
  const others = new Map<string, number>();
  for (const attempt of attempts) if (attempt.otherwise) others.set(attempt.otherwise, (others.get(attempt.otherwise) ?? 0) + 1);
  const acknowledged = attempts.filter((attempt) => attempt.acknowledged).length;
  return `${attempts.length} keys sent, ${acknowledged} acknowledged, ${[...others].map(([what, count]) => `${count} ${what}`).join(', ') || 'no other answer'}`;
}
