/**
 * The grader as a command (`npm run grade:receiver`, and the mock package's `partner-formation-mock grade-receiver`):
 * reads the receiver's URL and secret, runs the battery, prints or writes the report in the formats asked for, and
 * exits non-zero when a required case failed, so that a partner's CI fails with its receiver. Bad input is refused
 * with `error[CODE]` on stderr and its own exit status, before anything is sent.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { loadContract, type ContractDocument } from '../../contract-model/document.ts';
import { caseGroups } from './battery.ts';
import { formatJunit } from './formats/junit.ts';
import { formatMarkdown } from './formats/markdown.ts';
import { formatText } from './formats/text.ts';
import { verdictLine } from './formats/words.ts';
import { batteryFor, gradeBounds, GradeRefused, gradeReceiver, requestBound, type GradeInputProblem } from './grade.ts';
import type { ReceiverGrade } from './report-types.ts';

/** Each format, and the file `--out DIR` writes it to. */
const files = { text: 'receiver-grade.txt', markdown: 'receiver-grade.md', junit: 'receiver-grade.xml', json: 'receiver-grade.json' } as const;
type Format = keyof typeof files;
const formats = Object.keys(files) as Format[];
const write: Record<Format, (grade: ReceiverGrade) => string> = { text: formatText, markdown: formatMarkdown, junit: formatJunit, json: (grade) => JSON.stringify(grade, null, 2) };

/** The exit statuses, as --help states them. */
export const exitStatus = { passed: 0, failed: 1, usage: 2, internal: 3 } as const;

/** The code of each refusal of bad input, by what it is about. */
const problemCodes: Record<GradeInputProblem['subject'], string> = { url: 'url-invalid', probe: 'probe-url-invalid', secret: 'secret-invalid', only: 'case-unknown', skip: 'case-unknown' };

export interface Invocation {
  /** How the command is run, for its help: `npm run grade:receiver --`, `partner-formation-mock grade-receiver`. */
  command: string;
  env?: NodeJS.ProcessEnv;
}

/** Runs the command; resolves to its exit status, whatever happens (a fault of its own is `internal`). */
export function runGraderCli(argv: readonly string[], invocation: Invocation): Promise<number> {
  return run(argv, invocation).catch((error: unknown) => {
    console.error(`grade-receiver: error[internal]: ${error instanceof Error ? error.message : String(error)}`);
    return exitStatus.internal;
  });
}

async function run(argv: readonly string[], invocation: Invocation): Promise<number> {
  const env = invocation.env ?? process.env;
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: { secret: { type: 'string' }, probe: { type: 'string' }, only: { type: 'string' }, skip: { type: 'string' }, format: { type: 'string' }, out: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (error) {
    return refuse('usage', `${(error as Error).message} (--help lists the options)`);
  }
  const { values, positionals } = parsed;
  const contract = await loadContract();
  if (values.help === true) {
    console.log(helpText(invocation.command, contract));
    return exitStatus.passed;
  }
  if (positionals.length !== 1) return refuse('usage', `give the receiver's URL, once (${positionals.length === 0 ? 'none was given' : `${positionals.length} were given`}); --help says more`);
  const secret = values.secret ?? env.WEBHOOK_SECRET;
  if (secret === undefined) return refuse('secret-missing', "give the receiver's signing secret: --secret whsec_… (or WEBHOOK_SECRET)");
  const asked = chosenFormats(values.format, values.out !== undefined);
  if (typeof asked === 'string') return refuse('format-unknown', asked);
  let grade: ReceiverGrade;
  try {
    grade = await gradeReceiver({ receiverUrl: positionals[0]!, secret, ...(values.probe === undefined ? {} : { probeUrl: values.probe }), ...list('only', values.only), ...list('skip', values.skip) }, { contract });
  } catch (error) {
    if (!(error instanceof GradeRefused)) throw error;
    for (const problem of error.problems) console.error(`grade-receiver: error[${problemCodes[problem.subject]}]: ${problem.message}`);
    return exitStatus.usage;
  }
  await report(grade, asked, values.out);
  return grade.verdict === 'passed' ? exitStatus.passed : exitStatus.failed;
}

function list(name: 'only' | 'skip', value: string | undefined): { only?: string[]; skip?: string[] } {
  return value === undefined ? {} : { [name]: value.split(',').map((item) => item.trim()).filter((item) => item !== '') };
}

async function report(grade: ReceiverGrade, asked: Format[], out: string | undefined): Promise<void> {
  if (out === undefined) {
    console.log(write[asked[0]!](grade));
    return;
  }
  await mkdir(out, { recursive: true });
  const written = await Promise.all(
    asked.map(async (format) => {
      const file = join(out, files[format]);
      await writeFile(file, `${write[format](grade)}\n`);
      return relative(process.cwd(), file) || file;
    }),
  );
  console.log(`${verdictLine(grade)}\ngrade-receiver: wrote ${written.join(', ')}`);
}

/** The formats asked for, in the order asked, or why they cannot be written. */
function chosenFormats(option: string | undefined, toFiles: boolean): Format[] | string {
  if (option === undefined) return toFiles ? formats : ['text'];
  const names = option.split(',').map((name) => name.trim()).filter((name) => name !== '');
  const asked = [...new Set(names.flatMap((name) => (name === 'all' ? formats : [name])))];
  const unknown = asked.find((name) => !(formats as string[]).includes(name));
  if (unknown !== undefined || asked.length === 0) return `--format ${unknown ?? option}: one of ${formats.join(', ')} (or all), separated by commas`;
  if (asked.length > 1 && !toFiles) return `--format ${option}: several formats are written to files: give --out DIR`;
  return asked as Format[];
}

function refuse(code: string, message: string): number {
  console.error(`grade-receiver: error[${code}]: ${message}`);
  return exitStatus.usage;
}

function helpText(command: string, contract: ContractDocument): string {
  const cases = batteryFor(contract);
  const byGroup = caseGroups.map((group) => `  ${group.padEnd(11)} ${cases.filter((graderCase) => graderCase.group === group).map((graderCase) => graderCase.id).join(', ')}`);
  return `Usage: ${command} URL --secret whsec_… [--probe URL] [--only CASES] [--skip CASES] [--format FORMATS] [--out DIR]

Grades the webhook receiver at URL against the Partner Formation API contract: sends it a battery of signed
deliveries (Standard Webhooks), each a case a receiver must get right, and reports each as passed or failed,
with what was sent and what came back. Which cases are required (a "must"), the timestamp tolerance, the
delivery timeout and the event types are the contract's (x-webhook-receiver, x-service-limits, webhooks).

Cases, by group (--only and --skip take ids and groups):
${byGroup.join('\n')}

  events      each event type with the contract's example payload: a 2xx
  additions   an event type and a property the contract may add later: a 2xx
  signatures  no signature, a wrong one, one by another secret, a timestamp beyond the tolerance either way,
              a body altered after signing: a 4xx, never a 2xx
  rotation    two signatures, either one by the receiver's secret: a 2xx
  repeats     the same webhook-id twice: a 2xx both times, and processed once (read at --probe)
  ordering    a copy of an earlier event after a later one of its company: a warning saying what to do
  timing      every answer within the contract's delivery timeout, with the times

Safe by construction: it sends to URL only (and reads --probe), follows no redirect, sends one request at a
time at most ${gradeBounds.requestsPerSecond} a second, at most ${requestBound(cases)} requests in all, waits for each answer at most the
contract's delivery timeout and reads up to ${gradeBounds.answerBytesRead} bytes of it, and stops after ${gradeBounds.timeoutsBeforeStopping} answers time out.
Run it against a receiver in a test environment: its effects are those of real events.

  --secret SECRET    the receiver's signing secret, whsec_… (default: WEBHOOK_SECRET, which keeps it out of
                     the command line and its logs)
  --probe URL        where the receiver tells what it did: GET URL?webhook-id=ID must answer 200 with
                     {"processed": N}, how many times it applied that event's effects; without it,
                     repeat-processed-once is skipped
  --only CASES       only these cases and groups, separated by commas
  --skip CASES       not these
  --format FORMATS   one or more of ${formats.join(', ')} (or all), separated by commas: text (the default),
                     markdown (a CI summary or a comment), junit (JUnit XML: a test case per case), json
                     (the report as the mock's admin API answers it, ReceiverGrade)
  --out DIR          write each format to its file in DIR (${formats.map((format) => files[format]).join(', ')})
                     and print the verdict; needed for more than one format, and without --format it writes them all
  -h, --help         show this help

Exit status: ${exitStatus.passed} every required case passed (warnings and skipped cases do not fail it); ${exitStatus.failed} a required case
failed; ${exitStatus.usage} bad input, nothing sent, said on stderr as "grade-receiver: error[CODE]: …" with CODE one of usage,
url-invalid (not an absolute http(s) URL, or one with a user or password), probe-url-invalid, secret-missing,
secret-invalid, case-unknown, format-unknown; ${exitStatus.internal} the grader itself failed (error[internal]).`;
}
