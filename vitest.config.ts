import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Element suites run in Chromium under @web/test-runner, not here.
    exclude: ['test/elements/**', 'node_modules/**'],
    environment: 'node',
    // One throwaway PostgreSQL server per run for the suites that run on both stores.
    globalSetup: ['test/support/pg-global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Suites start real HTTP servers and SQLite files; two cores are shared, so keep it modest.
    maxWorkers: 2,
  },
});
