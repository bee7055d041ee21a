import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/** The fuzz suite: the contract suite's target resolution and response checks, over generated requests. */
export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['contract-tests/fuzz/**/*.fuzz.ts'],
    globalSetup: ['contract-tests/support/global-setup.ts'],
    setupFiles: ['contract-tests/support/per-file-setup.ts'],
    fileParallelism: false,
    testTimeout: 600_000,
    hookTimeout: 120_000,
  },
});
