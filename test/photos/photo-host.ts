import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PhotoHost {
  origin: string;
  host: string;
  requests: Array<{ url: string; headers: IncomingHttpHeaders }>;
  /** path → [status, content type, body] (or a redirect location). */
  routes: Map<string, { status: number; type?: string; body?: Buffer; location?: string; hold?: Promise<unknown> }>;
  close(): Promise<void>;
}

/** A real HTTP file host on 127.0.0.1 that records every request it gets. */
export async function startPhotoHost(): Promise<PhotoHost> {
  const requests: PhotoHost['requests'] = [];
  const routes: PhotoHost['routes'] = new Map();
  const server: Server = createServer(async (req, res) => {
    requests.push({ url: req.url ?? '', headers: req.headers });
    const route = routes.get(req.url ?? '');
    if (!route) return void res.writeHead(404).end();
    // A held route answers when the test lets it (or never, if the client gives up first).
    if (route.hold) await route.hold;
    if (res.destroyed) return;
    if (route.location) return void res.writeHead(route.status, { Location: route.location }).end();
    res.writeHead(route.status, { 'Content-Type': route.type ?? 'image/jpeg', 'Content-Length': String(route.body?.length ?? 0) });
    res.end(route.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    requests,
    routes,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
