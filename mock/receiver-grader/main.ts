/** `npm run grade:receiver`: the grader as a command, run from a clone (cli.ts). */
import { runGraderCli } from './cli.ts';

process.exitCode = await runGraderCli(process.argv.slice(2), { command: 'npm run grade:receiver --' });
