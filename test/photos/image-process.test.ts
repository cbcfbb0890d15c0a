import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentHash, PhotoDownloadError } from '../../server/photos/download.ts';
import { downloadInImageProcess } from '../../server/photos/image-process.ts';
import { variantPath } from '../../server/photos/variant-files.ts';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');
const folder = mkdtempSync(join(tmpdir(), 'estate-image-process-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

// A photo host on loopback: a JPEG, an SVG (no photo), and a redirect off the allow-list.
let photo: Buffer;
let host: Server;
let hostName: string;
beforeAll(async () => {
  photo = await sharp({ create: { width: 800, height: 600, channels: 3, background: '#3a7' } })
    .jpeg()
    .toBuffer();
  host = createServer((request, response) => {
    if (request.url === '/photo.jpg') response.writeHead(200, { 'content-type': 'image/jpeg' }).end(photo);
    else if (request.url === '/drawing.svg') response.writeHead(200, { 'content-type': 'image/png' }).end('<svg xmlns="http://www.w3.org/2000/svg"/>');
    else if (request.url === '/elsewhere') response.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' }).end();
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  hostName = `127.0.0.1:${(host.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => host.close(() => resolve())));
const fromHost = (path: string) => downloadInImageProcess(`http://${hostName}${path}`, { hosts: [hostName], maxBytes: 5_000_000 });

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

    const kept = await fromHost('/photo.jpg');
    // The relay learns the hash of the bytes the image process holds, and never the bytes.
    expect(kept).toMatchObject({ hash: contentHash(photo), contentType: 'image/jpeg' });
    expect(kept).not.toHaveProperty('bytes');
    const made = await kept.makeVariants(folder, [240, 480]);
    expect(made).toEqual({ width: 480, height: 360, widths: [240, 480] });
    const written = await sharp(variantPath(folder, kept.hash, 240, 'webp')).metadata();
    expect([written.format, written.width]).toEqual(['webp', 240]);
    // Made once: the image process let go of the bytes.
    await expect(kept.makeVariants(folder, [240])).rejects.toThrow(/already made or dropped/);
  });

  it('answers a file that is no image, and a redirect off PHOTO_HOSTS, with the mirror’s own permanent errors, across the process boundary', async () => {
    const drawing = await fromHost('/drawing.svg');
    const refused = await drawing.makeVariants(folder, [240]).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PhotoDownloadError);
    expect(refused).toMatchObject({ reason: 'bad_type', permanent: true });

    const redirected = await fromHost('/elsewhere').catch((error: unknown) => error);
    expect(redirected).toBeInstanceOf(PhotoDownloadError);
    expect(redirected).toMatchObject({ reason: 'host_not_allowed', permanent: true });
    const missing = await fromHost('/nothing.jpg').catch((error: unknown) => error);
    expect(missing).toMatchObject({ reason: 'http_error', permanent: true });
  });

  it('drops a download the relay has no use for (the same bytes mirrored already), so nothing is held', async () => {
    const kept = await fromHost('/photo.jpg');
    kept.drop();
    await expect(kept.makeVariants(folder, [240])).rejects.toThrow(/already made or dropped/);
  });
});
