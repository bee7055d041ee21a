/**
 * `npm test`: every check of the kit, in the order a failure is cheapest to find, with a summary at the end.
 * Each stage is an npm script of its own, which can be run alone.
 */
import { parseArgs } from 'node:util';
import { formatSummary, runStages, type Stage } from './run-stages.ts';

export const stageScripts = [
  'lint', 'check:generated', 'check:breaking', 'check:architecture', 'typecheck', 'test:unit', 'test:contract', 'test:dredd', 'test:workflows', 'test:fuzz',
];

const help = `Usage: npm test [-- --bail] [--only STAGE,…]

Runs every check, one stage after the other (${stageScripts.join(', ')}), and ends with a summary of each
stage: passed or failed, and how long it took. Exits 1 when any failed.

  --bail          stop at the first stage that fails
  --only LIST     run only these stages (comma-separated names from the list above)
  -h, --help      show this help`;

const { values } = parseArgs({ options: { bail: { type: 'boolean' }, only: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
if (values.help) {
  console.log(help);
} else {
  const only = values.only?.split(',').map((name) => name.trim());
  const unknown = only?.filter((name) => !stageScripts.includes(name)) ?? [];
  if (unknown.length > 0) {
    console.error(`--only: no stage ${unknown.join(', ')}; the stages are ${stageScripts.join(', ')}.`);
    process.exitCode = 2;
  } else {
    const stages: Stage[] = stageScripts.filter((name) => !only || only.includes(name)).map((name) => ({ name, command: ['npm', 'run', '--silent', name] }));
    const results = await runStages(stages, { bail: values.bail === true, colour: process.stdout.isTTY === true, write: (text) => process.stdout.write(text) });
    process.stdout.write(formatSummary(results));
    process.exitCode = results.some((result) => result.outcome === 'failed') ? 1 : 0;
  }
}
