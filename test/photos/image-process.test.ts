import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { PhotoDownloadError } from '../../server/photos/download.ts';
import { makeVariants } from '../../server/photos/variant-process.ts';
import { variantPath } from '../../server/photos/variant-files.ts';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');
const folder = mkdtempSync(join(tmpdir(), 'estate-image-process-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('the image process (issue 33: memory)', () => {
  it('makes the variants in a process of its own: the relay itself never loads sharp, pg or nodemailer', async () => {
    // A fresh Node with the relay's whole composition imported, as main.ts imports it.
    const script = `
      await import('./server/compose/relay.ts');
      const { createRequire } = await import('node:module');
      const require = createRequire(process.cwd() + '/package.json');
      const loaded = ['sharp', 'pg', 'nodemailer'].filter((name) => require.cache[require.resolve(name)] !== undefined);
      console.log(JSON.stringify({ loaded, pid: process.pid }));`;
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root });
    expect(JSON.parse(stdout.trim().split('\n').pop()!).loaded).toEqual([]);

    const photo = await sharp({ create: { width: 800, height: 600, channels: 3, background: '#3a7' } })
      .jpeg()
      .toBuffer();
    const made = await makeVariants(photo, 'a'.repeat(32), folder, [240, 480]);
    expect(made).toEqual({ width: 480, height: 360, widths: [240, 480] });
    const written = await sharp(variantPath(folder, 'a'.repeat(32), 240, 'webp')).metadata();
    expect([written.format, written.width]).toEqual(['webp', 240]);
  });

  it('answers a file that is no image with the mirror’s own permanent error, across the process boundary', async () => {
    const refused = await makeVariants(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'b'.repeat(32), folder, [240]).catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(PhotoDownloadError);
    expect(refused).toMatchObject({ reason: 'bad_type', permanent: true });
  });
});
