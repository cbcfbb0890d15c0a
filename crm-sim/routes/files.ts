import { createHash } from 'node:crypto';
import express, { type Request, type Response, type Router } from 'express';
import { renderImage, thumbnailSizes, type ImageSize, type RenderedFile } from '../photos.ts';
import type { ImageRef } from '../model.ts';
import type { IntegratorKey, SimulatorState } from '../state.ts';
import { countRequests, injectFaults } from './api.ts';

// Rendered files are memoised and never change, so each is hashed once, not on every download.
const etags = new WeakMap<RenderedFile, string>();

function etagOf(file: RenderedFile): string {
  let etag = etags.get(file);
  if (etag === undefined) {
    etag = `"${createHash('sha1').update(file.data).digest('hex').slice(0, 27)}"`;
    etags.set(file, etag);
  }
  return etag;
}

/**
 * The file host: photo and staff-portrait JPEGs, fetched without the API key or token, as from the
 * CRM's CDN. Conditional requests work (Last-Modified / If-Modified-Since, ETag / If-None-Match)
 * so a mirror can revalidate cheaply. Unpublished photos are served too: hiding them is the
 * client's job, as with the real host.
 */
export function filesRouter(key: IntegratorKey): Router {
  const router = express.Router();
  router.use(countRequests(key, '/files'));
  // One host for every account on the key: the file's account answers, with its faults.
  router.use((req, res, next) => {
    const filename = req.path.slice(req.path.lastIndexOf('/') + 1);
    const owner = key.accounts.find((account) => account.photoByFile(filename) ?? account.userByPhotoFile(filename)) ?? key.accounts[0];
    if (!owner) return void res.status(404).type('text/plain').send('Not found');
    res.locals.simAccount = owner;
    injectFaults(owner, '/files')(req, res, next);
  });
  const accountOf = (res: Response): SimulatorState => res.locals.simAccount as SimulatorState;

  async function send(req: Request, res: Response, image: ImageRef, size: ImageSize, modified: number): Promise<void> {
    const rendered = await renderImage(image);
    const file = rendered[size];
    if (!file) {
      res.status(404).type('text/plain').send('Not found');
      return;
    }
    const etag = etagOf(file);
    const lastModified = new Date(Math.floor(modified / 1000) * 1000);
    res.set({
      'Content-Type': 'image/jpeg',
      'Last-Modified': lastModified.toUTCString(),
      ETag: etag,
      'Cache-Control': 'public, max-age=86400',
      'Accept-Ranges': 'none',
    });
    const ifNoneMatch = req.get('if-none-match');
    const ifModifiedSince = Date.parse(req.get('if-modified-since') ?? '');
    const fresh = ifNoneMatch
      ? ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)
      : !Number.isNaN(ifModifiedSince) && lastModified.getTime() <= ifModifiedSince;
    if (fresh) {
      key.counters.photoNotModified++;
      res.status(304).end();
      return;
    }
    key.counters.photoDownloads++;
    res.set('Content-Length', String(file.data.length));
    res.status(200).end(req.method === 'HEAD' ? undefined : file.data);
  }

  const notFound = (res: Response) => res.status(404).type('text/plain').send('Not found');

  router.get('/photos/:propertyId/:filename', async (req, res) => {
    const photo = accountOf(res).photoByFile(req.params.filename);
    if (!photo || String(photo.propertyId) !== req.params.propertyId) return notFound(res);
    await send(req, res, photo.image, 'original', photo.modified);
  });

  router.get('/photos/:propertyId/:size/:filename', async (req, res) => {
    const photo = accountOf(res).photoByFile(req.params.filename);
    const size = req.params.size as ImageSize;
    if (!photo || String(photo.propertyId) !== req.params.propertyId || !thumbnailSizes(photo.image.pool).includes(size)) {
      return notFound(res);
    }
    await send(req, res, photo.image, size, photo.modified);
  });

  router.get('/users/:userId/:filename', async (req, res) => {
    const user = accountOf(res).userByPhotoFile(req.params.filename);
    if (!user?.photo || String(user.id) !== req.params.userId) return notFound(res);
    await send(req, res, user.photo.image, 'original', user.photo.modified);
  });

  router.get('/users/:userId/thumb_360/:filename', async (req, res) => {
    const user = accountOf(res).userByPhotoFile(req.params.filename);
    if (!user?.photo || String(user.id) !== req.params.userId) return notFound(res);
    await send(req, res, user.photo.image, 'thumb_360', user.photo.modified);
  });

  router.use((_req, res) => {
    notFound(res);
  });
  return router;
}
