// Failing relay paths for the element tests, served by the test runner's own server (same origin
// as the test pages). An element pointed at `${location.origin}/__faults/<token>/<mode>/` gets:
//   mode `status-<code>`: that HTTP status with a relay-shaped error body (429 adds Retry-After: 30);
//   mode `hold`:          no answer until `POST /__faults/<token>/release`, then a 503 — a send
//                         caught in flight, for the "sending" state and double-click tests. A GET
//                         (an image: the map's tiles) is answered with a small PNG once released,
//                         and every later GET of that token at once.
// Every body sent there is recorded: `GET /__faults/<token>/received` lists them (JSON), so a test
// can see which originalId a failed attempt carried. The happy paths use the real relay.

const MAX_HOLD_MS = 20_000;
/** A 1×1 PNG: what a held image request gets once released. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

/** @returns {import('koa').Middleware} */
export function faultPathsMiddleware() {
  /** @type {Map<string, unknown[]>} */
  const received = new Map();
  /** @type {Map<string, Array<() => void>>} */
  const held = new Map();
  /** Tokens whose GETs are no longer held. */
  const released = new Set();

  const readBody = (req) =>
    new Promise((resolve) => {
      let text = '';
      req.setEncoding('utf8');
      req.on('data', (chunk) => (text += chunk));
      req.on('end', () => {
        try {
          resolve(JSON.parse(text));
        } catch {
          resolve(text);
        }
      });
    });

  return async (ctx, next) => {
    const match = /^\/__faults\/([\w-]+)\/(received|release|hold|status-(\d{3}))(?:\/.*)?$/.exec(ctx.path);
    if (!match) return next();
    const [, token, mode, code] = match;

    if (mode === 'received' && ctx.method === 'GET') {
      ctx.type = 'application/json';
      ctx.body = JSON.stringify(received.get(token) ?? []);
      return;
    }
    if (mode === 'release' && ctx.method === 'POST') {
      released.add(token);
      for (const release of held.get(token) ?? []) release();
      held.delete(token);
      ctx.status = 204;
      return;
    }
    const hold = () =>
      new Promise((resolve) => {
        const timer = setTimeout(resolve, MAX_HOLD_MS);
        held.set(token, [...(held.get(token) ?? []), () => (clearTimeout(timer), resolve())]);
      });
    if (mode === 'hold' && ctx.method === 'GET') {
      if (!released.has(token)) await hold();
      ctx.type = 'image/png';
      ctx.set('Cache-Control', 'no-store');
      ctx.body = PNG;
      return;
    }
    if (ctx.method !== 'POST') {
      ctx.status = 405;
      return;
    }

    const body = await readBody(ctx.req);
    received.set(token, [...(received.get(token) ?? []), body]);
    if (mode === 'hold') await hold();
    const status = code ? Number(code) : 503;
    ctx.status = status;
    ctx.type = 'application/json';
    if (status === 429) ctx.set('Retry-After', '30');
    ctx.body = JSON.stringify({ error: `fault_${status}`, message: `Injected fault: ${status}.` });
  };
}
