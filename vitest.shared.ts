import { defineConfig } from 'vitest/config';

/** One vitest configuration for every package; each package's vitest.config.ts re-exports it. */
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    reporters: ['default'],
  },
});
