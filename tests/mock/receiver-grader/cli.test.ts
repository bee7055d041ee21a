/**
 * The grader as a command: its help states the battery, its bounds and its exit statuses; bad input is refused with
 * error[CODE] and status 2 before anything is sent; a receiver that fails a required case exits 1; the report is
 * written as text, Markdown, JUnit and JSON. And `npm run grade:receiver` itself, against the example receiver,
 * passes every case.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadContract } from '../../../contract-model/document.ts';
import { runGraderCli } from '../../../mock/receiver-grader/cli.ts';
import { batteryFor, gradeBounds, requestBound } from '../../../mock/receiver-grader/grade.ts';
import type { ReceiverGrade } from '../../../mock/receiver-grader/report-types.ts';
import { receiverSecret, startReceiver, startServer, type RunningReceiver } from './support/receivers.ts';

const contract = await loadContract();
let good: RunningReceiver;
let forgiving: RunningReceiver;
let folder: string;

beforeAll(async () => {
  [good, forgiving, folder] = await Promise.all([startReceiver('none'), startReceiver('skips-verification'), mkdtemp(join(tmpdir(), 'grade-receiver-'))]);
});
afterAll(async () => {
  await Promise.all([good?.close(), forgiving?.close(), folder ? rm(folder, { recursive: true, force: true }) : undefined]);
});

/** Runs the command in this process: its exit status and what it printed. */
async function grade(...argv: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((line: unknown) => void out.push(String(line)));
  const error = vi.spyOn(console, 'error').mockImplementation((line: unknown) => void err.push(String(line)));
  try {
    const status = await runGraderCli(argv, { command: 'npm run grade:receiver --', env: {} });
    return { status, stdout: out.join('\n'), stderr: err.join('\n') };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

describe('npm run grade:receiver', () => {
  it('says in --help what it sends, where, how much and how fast, and what its exit statuses mean', async () => {
    const { status, stdout } = await grade('--help');
    expect(status).toBe(0);
    for (const graderCase of batteryFor(contract)) expect(stdout).toContain(graderCase.id);
    expect(stdout).toContain(`it sends to URL only (and reads --probe), follows no redirect, sends one request at a\ntime at most ${gradeBounds.requestsPerSecond} a second, at most ${requestBound(batteryFor(contract))} requests in all`);
    expect(stdout).toContain('GET URL?webhook-id=ID must answer 200 with\n                     {"processed": N}');
    expect(stdout).toMatch(/Exit status: 0 every required case passed .* 1 a required case\nfailed; 2 bad input, nothing sent/);
  });

  const refusals: [string, string[], string][] = [
    ['no URL', ['--secret', receiverSecret], 'usage'],
    ['two URLs', ['http://localhost:1/a', 'http://localhost:1/b', '--secret', receiverSecret], 'usage'],
    ['an unknown option', ['http://localhost:1/', '--secret', receiverSecret, '--follow-redirects'], 'usage'],
    ['a URL that is not http(s)', ['ftp://localhost/webhooks', '--secret', receiverSecret], 'url-invalid'],
    ['no secret', ['http://localhost:1/'], 'secret-missing'],
    ['a secret of another form', ['http://localhost:1/', '--secret', 'sk_live_123'], 'secret-invalid'],
    ['a probe that is not http(s)', ['http://localhost:1/', '--secret', receiverSecret, '--probe', 'javascript:alert(1)'], 'probe-url-invalid'],
    ['a case the battery lacks', ['http://localhost:1/', '--secret', receiverSecret, '--only', 'signatures,signature-forged'], 'case-unknown'],
    ['a format it does not write', ['http://localhost:1/', '--secret', receiverSecret, '--format', 'pdf'], 'format-unknown'],
    ['several formats without --out', ['http://localhost:1/', '--secret', receiverSecret, '--format', 'text,junit'], 'format-unknown'],
  ];
  for (const [what, argv, code] of refusals) {
    it(`refuses ${what} with error[${code}] and status 2, sending nothing`, async () => {
      const watched = await startServer(() => ({ status: 200 }));
      const { status, stderr, stdout } = await grade(...argv.map((arg) => arg.replace('http://localhost:1', watched.url)));
      await watched.close();
      expect([status, stdout]).toEqual([2, '']);
      expect(stderr).toMatch(new RegExp(`^grade-receiver: error\\[${code}\\]: \\S`));
      expect(watched.requests).toEqual([]);
    });
  }

  it('exits 1 for a receiver that fails a required case, naming it with what was sent and what came back', async () => {
    const { status, stdout } = await grade(forgiving.url, '--secret', receiverSecret, '--only', 'signature-missing,event-document.ready');
    expect(status).toBe(1);
    expect(stdout).toContain('FAILED: 1 passed, 1 failed, 0 warnings, 0 skipped; 2 requests');
    expect(stdout).toMatch(/✘ signature-missing: No webhook-signature header \[required\]\n {6}Answered 200 in \d+ ms: it carries no signature, and the receiver took it as the service's\.\n {6}expected: A 4xx, never a 2xx/);
    expect(stdout).toMatch(/→ POST receiver\n(.*\n)*.*webhook-id: evt_\w{24}\n(.*\n)*.*← 200 in \d+ ms \(application\/json\)/);
  });

  it('takes the secret from WEBHOOK_SECRET, and prints Markdown for a CI summary', async () => {
    const out: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((line: unknown) => void out.push(String(line)));
    const status = await runGraderCli([good.url, '--format', 'markdown', '--only', 'rotation'], { command: 'grade-receiver', env: { WEBHOOK_SECRET: receiverSecret } }).finally(() => log.mockRestore());
    expect(status).toBe(0);
    expect(out.join('\n')).toMatch(/^## Receiver grade of http:\/\/localhost:\d+\/webhooks, against the Partner Formation API contract \d/);
    expect(out.join('\n')).toContain('| ✔ passed | `rotation-yours-first` Two signatures, the first by its secret | rotation | required |');
  });

  it('writes every format to --out DIR, the JUnit report a test case per case and a failure per failed one', async () => {
    const { status, stdout } = await grade(forgiving.url, '--secret', receiverSecret, '--only', 'signatures,events', '--out', folder);
    expect(status).toBe(1);
    expect(stdout).toMatch(/^FAILED: .*\ngrade-receiver: wrote .*receiver-grade\.txt, .*receiver-grade\.md, .*receiver-grade\.xml, .*receiver-grade\.json$/);
    expect((await readdir(folder)).sort()).toEqual(['receiver-grade.json', 'receiver-grade.md', 'receiver-grade.txt', 'receiver-grade.xml']);
    const report = JSON.parse(await readFile(join(folder, 'receiver-grade.json'), 'utf8')) as ReceiverGrade;
    expect(report.totals.failed).toBe(6);
    const junit = await readFile(join(folder, 'receiver-grade.xml'), 'utf8');
    expect(junit).toMatch(/<testsuites name="[^"]+" tests="\d+" failures="6" skipped="0"/);
    expect(junit.match(/<testcase /g)).toHaveLength(report.cases.length);
    expect(junit.match(/<failure message="Answered 200/g)).toHaveLength(6);
    expect(junit).toContain('<testsuite name="signatures" tests="6" failures="6"');
  });

  it("is described by the README with the grader's own bounds and the contract's count of cases", async () => {
    const root = join(import.meta.dirname, '..', '..', '..');
    const readme = (await readFile(join(root, 'README.md'), 'utf8')).replace(/\s+/g, ' ');
    const eventTypes = Object.keys(contract.webhooks ?? {}).length;
    const words = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
    expect(readme).toContain(`sends one request at a time at most ${gradeBounds.requestsPerSecond} a second, no more than its cases count (${requestBound(batteryFor(contract))} for this contract's ${words[eventTypes]} event types)`);
    expect(readme).toContain(`reads up to ${gradeBounds.answerBytesRead / 1024} KiB of it, and stops after ${words[gradeBounds.timeoutsBeforeStopping]} answers time out`);
    const packageReadme = (await readFile(join(root, 'mock', 'package', 'README.md'), 'utf8')).replace(/\s+/g, ' ');
    expect(packageReadme).toContain('npx @partner-formation/mock grade-receiver');
  });

  it('passes the example receiver in every case when run as the npm script, from a clone', async () => {
    const run = promisify(execFile);
    const root = join(import.meta.dirname, '..', '..', '..');
    const { stdout } = await run('npm', ['run', '-s', 'grade:receiver', '--', good.url, '--probe', good.probeUrl], { cwd: root, env: { ...process.env, WEBHOOK_SECRET: receiverSecret } });
    expect(stdout).toMatch(/^PASSED: \d+ passed, 0 failed, 1 warning, 0 skipped/m);
  }, 60_000);
});
