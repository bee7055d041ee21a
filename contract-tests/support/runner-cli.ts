/**
 * The command line of the Dredd and Arazzo runners: their own options, then `--` and whatever goes on to the tool
 * they run; and the exit status: the run's own, or 2 for a usage problem, reported as its message alone.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './usage-error.ts';

type RunnerOptions = NonNullable<ParseArgsConfig['options']>;

export function parseRunnerArgs<const T extends RunnerOptions>(argv: readonly string[], options: T) {
  const end = argv.indexOf('--');
  const own = end < 0 ? [...argv] : argv.slice(0, end);
  const passthrough = end < 0 ? [] : argv.slice(end + 1);
  try {
    const { values } = parseArgs({ args: own, options, strict: true, allowPositionals: false });
    return { values, passthrough };
  } catch (error) {
    // Node's first sentence names the option ("Unknown option '--x'", "Option '--har <value>' argument missing").
    const problem = (error as Error).message.split('. ')[0]?.replace(/\.$/, '');
    throw new UsageError(`${problem}. Run with --help to see the options.`);
  }
}

/** Runs a runner's `main` and sets the process's exit status from it. */
export function runMain(main: () => Promise<number>): void {
  main().then(
    (status) => {
      process.exitCode = status;
    },
    (error: unknown) => {
      console.error(error instanceof UsageError ? `error: ${error.message}` : error);
      process.exitCode = 2;
    },
  );
}
