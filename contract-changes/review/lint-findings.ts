/**
 * What the linters say of a contract, as `npm run lint` runs them (Spectral with the project's ruleset, Redocly
 * with its config), each finding with its file and line; and which findings a change introduced. A finding is the
 * same before and after when its tool, rule, file, place in the file and message are: lines move with any edit.
 * The two linters run beside each other and beside the review's comparison; the base is linted only when needed.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { getLocationForJsonPath, parseWithPointers } from '@stoplight/yaml';
import { parsePointer } from '../location.ts';
import { lintCacheEntry } from './lint-cache.ts';

export type Severity = 'error' | 'warning' | 'notice';

export interface LintFinding {
  tool: 'spectral' | 'redocly';
  rule: string;
  severity: Severity;
  message: string;
  /** Relative to the folder holding the contract's folder: `openapi/components/schemas/Customer.yaml`. */
  file: string;
  /** 1-based. */
  line: number;
  /** Where in the file, as a JSON Pointer: what identifies the finding across edits. */
  at: string;
}

const run = promisify(execFile);
const quiet = { REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };

/**
 * The linters' rules that validate examples. The review checks examples itself (example-checks.ts), as the side
 * that sends them sees them and against the `oneOf` branch they illustrate; these rules check every branch and
 * ignore `writeOnly`, and would say the same problem three times, some of it untrue. `npm run lint` still runs them
 * (Redocly is told to skip them; Spectral's are dropped from what it reports).
 */
const exampleRules = { spectral: ['oas3-valid-media-example', 'oas3-valid-schema-example'], redocly: ['no-invalid-media-type-examples', 'no-invalid-schema-examples'] };

export interface LintOptions {
  /** Whether findings are read from and kept in the cache (lint-cache.ts); true unless told. */
  cache?: boolean;
}

/**
 * The findings of a contract but those of the example rules. `rootFile`: `<folder>/openapi/openapi.yaml`;
 * `projectRoot` holds the linters' configuration and binaries.
 */
export async function lintContract(rootFile: string, projectRoot: string, { cache = true }: LintOptions = {}): Promise<LintFinding[]> {
  const entry = cache ? await lintCacheEntry<LintFinding[]>(rootFile, projectRoot) : undefined;
  const kept = await entry?.read();
  if (kept !== undefined) return kept;
  const named = dirname(dirname(rootFile));
  const [spectral, redocly] = await Promise.all([runSpectral(rootFile, projectRoot, named), runRedocly(rootFile, projectRoot, named)]);
  const findings = [...spectral, ...redocly].filter((finding) => !exampleRules.spectral.includes(finding.rule));
  await entry?.write(findings);
  return findings;
}

/**
 * The findings the working contract has and the base had not, each once. The base is linted only when the working
 * contract has findings: a change cannot introduce one into a contract that has none.
 */
export async function introducedLintFindings(workingRoot: string, baseRoot: string, projectRoot: string, options: LintOptions = {}): Promise<LintFinding[]> {
  const now = await lintContract(workingRoot, projectRoot, options);
  if (now.length === 0) return [];
  return introducedFindings(await lintContract(baseRoot, projectRoot, options), now);
}

export function introducedFindings(before: readonly LintFinding[], after: readonly LintFinding[]): LintFinding[] {
  const known = new Set(before.map(identity));
  return after.filter((finding) => {
    if (known.has(identity(finding))) return false;
    known.add(identity(finding));
    return true;
  });
}

const identity = (finding: LintFinding): string => [finding.tool, finding.rule, finding.file, finding.at, finding.message].join('\u0000');

/** Runs a linter that exits non-zero on findings: its report is on stdout either way. */
async function output(command: string, args: string[], cwd: string): Promise<string> {
  try {
    return (await run(command, args, { cwd, env: { ...process.env, ...quiet }, maxBuffer: 64 * 1024 * 1024 })).stdout;
  } catch (error) {
    const { stdout } = error as { stdout?: string };
    if (stdout !== undefined && stdout.trim() !== '') return stdout;
    throw new Error(`${command} failed: ${(error as Error).message}`);
  }
}

const spectralSeverities: Severity[] = ['error', 'warning', 'notice', 'notice'];

interface SpectralResult {
  code: string | number;
  message: string;
  path: (string | number)[];
  severity: number;
  source?: string;
  range: { start: { line: number } };
}

async function runSpectral(rootFile: string, projectRoot: string, named: string): Promise<LintFinding[]> {
  const args = ['lint', rootFile, '--ruleset', join(projectRoot, '.spectral.yaml'), '--format', 'json', '--quiet', '--fail-severity', 'hint'];
  const results = JSON.parse(extractJson(await output(join(projectRoot, 'node_modules', '.bin', 'spectral'), args, projectRoot))) as SpectralResult[];
  return results.map((result) => {
    const source = resolve(projectRoot, result.source ?? rootFile);
    return {
      tool: 'spectral',
      rule: String(result.code),
      severity: spectralSeverities[result.severity] ?? 'warning',
      message: result.message,
      file: relative(named, source),
      line: result.range.start.line + 1,
      at: `#/${result.path.join('/')}`,
    };
  });
}

interface RedoclyProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: { source: { ref: string }; pointer?: string }[];
}

async function runRedocly(rootFile: string, projectRoot: string, named: string): Promise<LintFinding[]> {
  const skipped = exampleRules.redocly.flatMap((rule) => ['--skip-rule', rule]);
  const args = ['lint', rootFile, '--config', join(projectRoot, 'redocly.yaml'), '--format', 'json', ...skipped];
  // The report names files relative to where the linter ran.
  const { problems } = JSON.parse(extractJson(await output(join(projectRoot, 'node_modules', '.bin', 'redocly'), args, projectRoot))) as { problems: RedoclyProblem[] };
  return problems.map((problem) => {
    const [location] = problem.location;
    const source = resolve(projectRoot, location?.source.ref ?? rootFile);
    const at = location?.pointer ?? '#/';
    return {
      tool: 'redocly',
      rule: problem.ruleId,
      severity: problem.severity === 'error' ? 'error' : 'warning',
      message: problem.message,
      file: relative(named, source),
      line: lineOf(source, at),
      at,
    };
  });
}

function lineOf(file: string, pointer: string): number {
  const parsed = parseWithPointers(readFileSync(file, 'utf8'));
  return (getLocationForJsonPath(parsed, parsePointer(pointer), true)?.range.start.line ?? 0) + 1;
}

/** The report is the one JSON value printed; a linter may print a line around it. */
function extractJson(text: string): string {
  const start = text.search(/[[{]/);
  const end = Math.max(text.lastIndexOf(']'), text.lastIndexOf('}'));
  if (start < 0 || end < start) throw new Error(`a linter printed no JSON report:\n${text}`);
  return text.slice(start, end + 1);
}
