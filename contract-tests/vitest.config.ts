import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { CoverageLastSequencer } from './support/sequencer.ts';

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('..', import.meta.url)),
    include: ['contract-tests/**/*.test.ts'],
    globalSetup: ['contract-tests/support/global-setup.ts'],
    setupFiles: ['contract-tests/support/per-file-setup.ts'],
    // One target, one set of partners: files run one after another, so that a fault armed for one operation or
    // a webhook refusal never lands on another file's request, and the coverage file runs after all the others.
    fileParallelism: false,
    // The files run one after another in one worker, sharing its modules (the client, the contract's validators)
    // rather than loading them again per file: 7 s of CPU against 16 s for the suite against the mock.
    isolate: false,
    sequence: { sequencer: CoverageLastSequencer },
    // Generous: a real sandbox is remote, and its first webhook retry comes 5 s after a refusal.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
  },
});
