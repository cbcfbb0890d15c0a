import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';

const postgres = inject('postgres');

describe("the test run's PostgreSQL server", () => {
  it('is there, or the run says why not', () => {
    if ('skipped' in postgres) {
      // Not a pass in disguise: the reason is printed with the skipped suites.
      expect(postgres.skipped).toMatch(/\w/);
      return;
    }
    expect(postgres.url).toMatch(/^postgres:\/\/postgres:[^@]+@127\.0\.0\.1:\d+\/estate_test$/);
  });

  it.skipIf('skipped' in postgres)(`answers queries (skipped: ${'skipped' in postgres ? postgres.skipped : ''})`, async () => {
    const client = new pg.Client({ connectionString: (postgres as { url: string }).url });
    await client.connect();
    try {
      const { rows } = await client.query<{ server_version: string }>('SHOW server_version');
      expect(Number(rows[0]!.server_version.split('.')[0])).toBe((postgres as { version: number }).version);
    } finally {
      await client.end();
    }
  });
});
