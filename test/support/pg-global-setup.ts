// vitest globalSetup: one throwaway PostgreSQL server for the whole run (test/support/postgres.ts),
// handed to the suites through inject('postgres'). Stopped and removed at teardown; a watchdog
// removes it if the run is killed. When there is no server to be had, suites get the reason.
import type { TestProject } from 'vitest/node';
import { findOrInstallPostgres, startThrowawayPostgres, type PostgresForTests } from './postgres.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: PostgresForTests;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  // ESTATE_TEST_POSTGRES=off: runs that touch no PostgreSQL suite may save the cluster's start.
  if (process.env.ESTATE_TEST_POSTGRES === 'off') {
    project.provide('postgres', { skipped: 'ESTATE_TEST_POSTGRES=off' });
    return () => {};
  }
  const found = findOrInstallPostgres((line) => console.log(line));
  if ('skipped' in found) {
    console.warn(`\nPostgreSQL suites SKIPPED: ${found.skipped}\n`);
    project.provide('postgres', found);
    return () => {};
  }
  try {
    const server = await startThrowawayPostgres(found.bin, found.version);
    project.provide('postgres', { url: server.url, version: server.version });
    return () => server.stop();
  } catch (error) {
    const reason = `could not start a throwaway PostgreSQL ${found.version} server: ${(error as Error).message}`;
    console.warn(`\nPostgreSQL suites SKIPPED: ${reason}\n`);
    project.provide('postgres', { skipped: reason });
    return () => {};
  }
}
