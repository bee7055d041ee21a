/**
 * Runs last (see support/sequencer.ts). Every (operation, status) pair the contract documents must have been
 * exercised by this run, unless it is untestable against this target for a stated reason. The table is left
 * for globalSetup to print after the summary.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { buildCoverage, parseRecords, renderCoverage } from './support/coverage.ts';
import { target } from './support/observe.ts';
import { coverageTestFile } from './support/sequencer.ts';

const suiteDir = fileURLToPath(new URL('.', import.meta.url));

it('exercised every documented (operation, status) pair, or says why it cannot against this target', (context) => {
  const records = parseRecords(readFileSync(target.recordFile, 'utf8'));
  const ran = new Set(records.flatMap((line) => (line.kind === 'file' ? [relative(suiteDir, resolve(line.file))] : [])));
  const files = readdirSync(suiteDir, { recursive: true, encoding: 'utf8' }).filter(
    (name) => name.endsWith('.test.ts') && !name.startsWith('node_modules') && name !== coverageTestFile,
  );
  const notRun = files.filter((name) => !ran.has(name));
  const complete = notRun.length === 0;

  const report = buildCoverage(records, target);
  const table = renderCoverage(report, target, complete);
  writeFileSync(target.tableFile, table);

  if (!complete) context.skip(`partial run, coverage not enforced (did not run: ${notRun.join(', ')})`);
  expect(
    report.missing.map((pair) => `${pair.operationId} ${pair.status}`),
    'documented pairs never exercised (the table is printed after the summary)',
  ).toEqual([]);
  expect(report.violations, 'responses that broke the contract (each failed its own test)').toBe(0);
});
