import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

/**
 * The tests of `tests/`, in groups that `npm test` runs as stages of their own, so that its summary shows where the
 * time goes. Each slow group names its files here and has its npm script (`npm run test:<name>`); `unit` is every
 * other file, the fast ones. tests/scripts/test-groups.test.ts checks that every test file is in exactly one group
 * and that every group is a stage of `npm test`, so a new file can never drop out of it.
 */
export const slowGroups = {
  // The client's and the mock's packages, packed, installed in an empty project and used from there.
  packages: ['tests/mock/package.test.ts', 'tests/mock/package-msw.test.ts', 'tests/client/package.test.ts'],
  // Real Chromium.
  browser: ['tests/browser/**/*.test.ts'],
  // State that outlives a process: Redis servers, replicas, SQLite files, processes killed and restarted.
  state: ['tests/mock/state/**/*.test.ts', 'tests/mock/store/conformance.test.ts'],
  // The breaking-change gate, the review and the release flow: in process, and as CLIs where a test needs one (the
  // review's exit statuses and files, the CI templates' steps, the release commands) over git histories of the contract.
  'contract-changes': ['tests/contract-changes/**/*.test.ts'],
  // The example app's component tests, in jsdom, with the mock in process behind Mock Service Worker (its own set-up).
  examples: ['examples/**/*.test.tsx'],
} as const satisfies Record<string, readonly string[]>;

/**
 * Files of a group run at once: they mostly wait on servers, browsers and child processes. One at a time (Vitest's
 * default on two cores, a core less than the machine has), test:state took 94 s against 44 s for two.
 */
const workersOf: Partial<Record<keyof typeof slowGroups, number>> = { state: 2, browser: 2, 'contract-changes': 2 };

/** What a group needs besides its files: the mock's package built once; the example app's tests in jsdom, its JSX Preact's, its set-up its own. */
const settingsOf: Partial<Record<keyof typeof slowGroups, Pick<TestProjectInlineConfiguration, 'oxc' | 'resolve'> & { test?: { environment?: string; setupFiles?: string[]; globalSetup?: string[] } }>> = {
  // The mock's package, built once for the group's files that install it.
  packages: { test: { globalSetup: ['tests/support/mock-package-setup.ts'] } },
  examples: {
    oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
    // The package's name, as the app imports it, resolved to its source here.
    resolve: { alias: { '@partner-formation/mock/msw': fileURLToPath(new URL('mock/package/msw.ts', import.meta.url)) } },
    test: { environment: 'jsdom', setupFiles: ['examples/frontend/tests/setup.ts'] },
  },
};

const group = (name: keyof typeof slowGroups, include: readonly string[]): TestProjectInlineConfiguration => ({
  // Takes the settings below (timeouts); each group only says which files are its own.
  extends: true,
  ...settingsOf[name],
  test: { name, include: [...include], ...(workersOf[name] === undefined ? {} : { maxWorkers: workersOf[name] }), ...settingsOf[name]?.test },
});

export default defineConfig({
  test: {
    testTimeout: 30_000,
    // Files share a worker's module graph instead of each loading its own: with Vitest's default, every file
    // imported the contract, Ajv and the mock afresh, and test:unit spent 164 s of CPU where it now spends 83 s
    // (test:contract-changes 335 s against 261 s; BENCHMARKS.md, "npm test, stage by stage"). A file that changes
    // what others import (vi.mock, a global) must undo it in its own hooks: every file passes in either mode.
    isolate: false,
    // Hooks start and stop mocks and servers: on a loaded two-core machine that can take more than the default 10 s.
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['tests/**/*.test.ts'],
          // Three files at once on two cores: most of their time is waiting on sockets, timers and child processes,
          // and one at a time (the default, a core less than the machine has) took twice as long.
          maxWorkers: 3,
          exclude: [...configDefaults.exclude, ...Object.values(slowGroups).flat()],
          // The client's type tests run with the fast ones, and only there. Vitest runs tsc over the tsconfig it is
          // given: the project's took 6 s of CPU to check everything `npm run typecheck` checks anyway; theirs, 0.5 s.
          typecheck: { enabled: true, include: ['tests/**/*.test-d.ts'], tsconfig: './tests/tsconfig.type-tests.json' },
        },
      },
      ...Object.entries(slowGroups).map(([name, include]) => group(name as keyof typeof slowGroups, include)),
    ],
  },
});
