// Failing relay paths for the element tests, served by the test runner's own server (same origin
// as the test pages). An element pointed at `${location.origin}/__faults/<token>/<mode>/` gets:
//   mode `status-<code>`: that HTTP status with a relay-shaped error body (429 adds Retry-After: 30);
//   mode `hold`:          no answer until `POST /__faults/<token>/release`, then a 503 — a send
//                         caught in flight, for the "sending" state and double-click tests. A GET
//                         (an image: the map's tiles) is answered with a small PNG once released,
//                         and every later GET of that token at once.
//   mode `alerts-<state>`: a relay's "Get alerts" settings (GET …/saved-searches/options and the POST):
//                         `off` not offered (the options say so, a POST is 403 alerts_not_offered),
//                         `refused` offered by the options but refused at the POST (settings changed
//                         since), `agent` offered with agent confirmation (a POST is a 202 saying so).
// Every body sent there is recorded: `GET /__faults/<token>/received` lists them (JSON), so a test
// can see which originalId a failed attempt carried. The happy paths use the real relay.

const MAX_HOLD_MS = 20_000;
const ALERTS_SETUP = "Set SMTP_URL and MAIL_FROM (or the agency's smtpUrl and mailFrom), or SAVED_SEARCH_CONFIRMATION=agent.";
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
    const match = /^\/__faults\/([\w-]+)\/(received|release|hold|status-(\d{3})|alerts-(off|refused|agent))(?:\/.*)?$/.exec(ctx.path);
    if (!match) return next();
    const [, token, mode, code, alerts] = match;

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
    if (alerts && ctx.method === 'GET' && ctx.path.endsWith('/saved-searches/options')) {
      ctx.type = 'application/json';
      ctx.body = JSON.stringify(
        alerts === 'off' ? { offered: false, setup: ALERTS_SETUP } : { offered: true, confirmation: alerts === 'agent' ? 'agent' : 'email' },
      );
      return;
    }
    if (ctx.method !== 'POST') {
      ctx.status = 405;
      return;
    }

    const body = await readBody(ctx.req);
    received.set(token, [...(received.get(token) ?? []), body]);
    if (alerts) {
      ctx.type = 'application/json';
      ctx.status = alerts === 'agent' ? 202 : 403;
      ctx.body = JSON.stringify(
        alerts === 'agent'
          ? { originalId: body?.originalId, status: 'queued', confirmation: 'agent' }
          : { error: 'alerts_not_offered', message: 'This site does not offer e-mail alerts yet.', setup: ALERTS_SETUP },
      );
      return;
    }
    if (mode === 'hold') await hold();
    const status = code ? Number(code) : 503;
    ctx.status = status;
    ctx.type = 'application/json';
    if (status === 429) ctx.set('Retry-After', '30');
    ctx.body = JSON.stringify({ error: `fault_${status}`, message: `Injected fault: ${status}.` });
  };
}
