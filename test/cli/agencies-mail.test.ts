// `agencies set` with the mail fields: an SMTP URL holding a password is refused on the command
// line, as a token is (ps, /proc and shell history show arguments), and read from --smtp-url-file;
// the other mail fields are options like any field. No relay runs: the file is what is checked.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../server/cli.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'estate-agencies-mail-'));
const file = join(dataDir, 'agencies.json');
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
writeFileSync(file, JSON.stringify({ agencies: [{ slug: 'harbour', name: 'Harbour Realty', accessToken: 'tok-harbour-0123456789' }] }), { mode: 0o600 });
chmodSync(file, 0o600);
const env = {
  DATA_DIR: dataDir,
  AGENCIES_FILE: file,
  CRM_BASE_URL: 'https://crm.invalid/api/v1.3',
  CRM_API_KEY: 'key-0123456789',
  PUBLIC_URL: 'https://relay.integrator.test',
};

async function cli(args: string[]): Promise<{ code: number; text: string }> {
  const lines: string[] = [];
  const code = await runCli(args, { env, out: (text) => lines.push(text), err: (text) => lines.push(text), stdin: Readable.from(['']) });
  return { code, text: lines.join('\n') };
}
const entry = () => (JSON.parse(readFileSync(file, 'utf8')) as { agencies: Array<Record<string, unknown>> }).agencies[0]!;

describe('agencies set: mail fields', () => {
  it('refuses an SMTP URL with a password on the command line, changing nothing and never echoing it', async () => {
    const before = readFileSync(file, 'utf8');
    for (const args of [['--smtp-url', 'smtps://relay:hunter2secret@mail.example:465'], ['--smtp-url=smtps://relay:hunter2secret@mail.example:465']]) {
      const result = await cli(['agencies', 'set', 'harbour', ...args]);
      expect(result.code).toBe(2);
      expect(result.text).toMatch(/^--smtp-url: this URL holds a password, and a password is never taken on the command line/);
      expect(result.text).toContain('--smtp-url-file');
      expect(result.text).not.toContain('hunter2secret');
    }
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('takes the URL from --smtp-url-file, and the From and the mode as options', async () => {
    const secretFile = join(dataDir, 'smtp-url');
    writeFileSync(secretFile, 'smtps://relay:hunter2secret@mail.example:465\n', { mode: 0o600 });
    const result = await cli([
      'agencies',
      'set',
      'harbour',
      '--smtp-url-file',
      secretFile,
      '--mail-from',
      'Harbour alerts <alerts@harbour.example>',
      '--alert-confirmation',
      'agent',
    ]);
    expect(result.text).not.toContain('hunter2secret');
    expect(result.code).toBe(0);
    expect(entry()).toMatchObject({
      smtpUrl: 'smtps://relay:hunter2secret@mail.example:465',
      mailFrom: 'Harbour alerts <alerts@harbour.example>',
      alertConfirmation: 'agent',
    });
    // A URL without a password may be an option; a bad value is refused by field, the file unchanged.
    expect((await cli(['agencies', 'set', 'harbour', '--smtp-url', 'smtp://mail.internal:25'])).code).toBe(0);
    expect(entry().smtpUrl).toBe('smtp://mail.internal:25');
    const bad = await cli(['agencies', 'set', 'harbour', '--alert-confirmation', 'sms']);
    expect(bad.code).not.toBe(0);
    expect(bad.text).toMatch(/alertConfirmation: must be email/);
    expect(entry().alertConfirmation).toBe('agent');
  });
});
