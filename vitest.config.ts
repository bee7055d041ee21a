import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    typecheck: { enabled: true, include: ['tests/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
    testTimeout: 30_000,
    // Hooks start and stop mocks and servers: on a loaded two-core machine that can take more than the default 10 s.
    hookTimeout: 30_000,
  },
});
