// Issue 9, item 3: anything that still escapes every catch is logged (redacted, as every log line)
// before the process exits with status 1 for its supervisor to restart it.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../server/http/app.ts';

function runWith(failure: string): { status: number | null; lines: Array<Record<string, unknown>> } {
  const script = `
    import { createLogger } from './server/runtime/log.ts';
    import { installLastResortHandlers } from './server/runtime/last-resort.ts';
    installLastResortHandlers(createLogger({ level: 'info' }));
    setTimeout(() => { ${failure} }, 10);
    setTimeout(() => console.log('{"still":"running"}'), 2000);
  `;
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: join(projectRoot),
    encoding: 'utf8',
    timeout: 30_000,
  });
  const lines = result.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { status: result.status, lines };
}

describe('last-resort handlers', () => {
  it('log an uncaught exception (with its stack, without personal data) and exit 1', () => {
    const { status, lines } = runWith(`const error = new Error('boom in a timer'); error.email = 'jane@example.com'; throw error;`);
    expect(status).toBe(1);
    const fatal = lines.find((line) => line.level === 60)!;
    expect(fatal).toMatchObject({ kind: 'uncaughtException' });
    expect(String(fatal.msg)).toMatch(/^uncaughtException: the relay stops/);
    expect(JSON.stringify(fatal.err)).toContain('boom in a timer');
    expect(JSON.stringify(lines)).not.toContain('jane@example.com');
    expect(lines.some((line) => line.still === 'running')).toBe(false);
  });

  it('log an unhandled rejection and exit 1', () => {
    const { status, lines } = runWith(`void Promise.reject(new Error('nobody awaited this'));`);
    expect(status).toBe(1);
    const fatal = lines.find((line) => line.level === 60)!;
    expect(fatal).toMatchObject({ kind: 'unhandledRejection' });
    expect(JSON.stringify(fatal.err)).toContain('nobody awaited this');
  });
});
