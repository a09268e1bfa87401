import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/** One vitest configuration for every package; each package's vitest.config.ts re-exports it. */
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Each run's temporary files in a directory of its own, removed at the end (vitest.tmpdir.ts).
    globalSetup: [fileURLToPath(new URL('./vitest.tmpdir.ts', import.meta.url))],
    // A tier whose tools are not built yet has nothing to test; it must not fail the run.
    passWithNoTests: true,
    reporters: ['default'],
  },
});
