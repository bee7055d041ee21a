import { describe, expect, it } from 'vitest';
import { parseRunnerArgs } from '../../../contract-tests/support/runner-cli.ts';
import { UsageError } from '../../../contract-tests/support/usage-error.ts';

const options = {
  help: { type: 'boolean', short: 'h' },
  verbose: { type: 'boolean' },
  har: { type: 'string' },
  workflow: { type: 'string', multiple: true },
} as const;

describe("a runner's command line", () => {
  it('takes its own options, and hands everything after -- to the tool', () => {
    const parsed = parseRunnerArgs(['--verbose', '--workflow', 'a', '--workflow', 'b', '--', '--only', 'x', '--verbose'], options);
    expect(parsed.values).toEqual({ verbose: true, workflow: ['a', 'b'] });
    expect(parsed.passthrough).toEqual(['--only', 'x', '--verbose']);
  });

  it.each([
    [['--bogus'], /Unknown option '--bogus'\. Run with --help/],
    [['--har'], /'--har <value>' argument missing\. Run with --help/],
    [['stray'], /Unexpected argument 'stray'\. Run with --help/],
  ])('refuses %j as a usage problem', (argv, message) => {
    expect(() => parseRunnerArgs(argv, options)).toThrow(UsageError);
    expect(() => parseRunnerArgs(argv, options)).toThrow(message);
  });
});
