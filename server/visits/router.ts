import express, { type ErrorRequestHandler, type Request, type Response, type Router } from 'express';
import { isbot } from 'isbot';
import { clientOf, PerClientLimit } from '../http/client-limit.ts';
import { corsPolicy } from '../http/cors.ts';
import { HttpError } from '../http/errors.ts';
import { MAX_BEACON_BYTES, parseBeacon } from './beacon.ts';
import type { VisitService } from './service.ts';

/**
 * The relay's own requests name themselves so (the CRM client's `estate-embed-relay`, the
 * geocoder's `estate-embed/<version>`); a monitor or load balancer probing the relay may send
 * this header. Neither is a visitor.
 */
export const PROBE_HEADER = 'X-Estate-Probe';
const RELAY_AGENT = /^estate-embed\b/i;

export interface VisitRouterOptions {
  /** Origins allowed to call the relay (ALLOWED_ORIGINS), and its own. */
  allowedOrigins: readonly string[];
  ownOrigins?: readonly string[];
  /** VISIT_BEACONS_PER_MINUTE: beacons a client may send a minute (0: no limit). */
  beaconsPerMinute: number;
  now?: () => number;
}

/** Whether a request is a person's browser: not a known bot, not without a user agent, not the relay's own probe. */
export function isVisitor(req: Request): boolean {
  const userAgent = req.get('User-Agent')?.trim();
  if (!userAgent) return false;
  if (req.get(PROBE_HEADER) !== undefined || RELAY_AGENT.test(userAgent)) return false;
  return !isbot(userAgent);
}

/**
 * `POST /api/v1/visits`: a beacon (navigator.sendBeacon's JSON string, sent as text/plain, or
 * application/json), at most 4 KB, a list of at most 50 events. Answered 204 at once for any
 * well-formed beacon, counted or not (a bot's, an unknown listing's, a full buffer's); 400 naming
 * the field for a malformed one, 413 past the cap; 429 with Retry-After past the client's beacons
 * a minute, its events counted as limited (the views a script could add are bounded).
 */
export function visitRouter(service: VisitService, options: VisitRouterOptions): Router {
  const router = express.Router({ caseSensitive: true, strict: true });
  router.use(corsPolicy({ allowedOrigins: options.allowedOrigins, ownOrigins: options.ownOrigins, methods: ['POST', 'OPTIONS'] }));
  // Whatever the type: a beacon's string body comes as text/plain.
  const body = express.text({ type: () => true, limit: MAX_BEACON_BYTES });
  const bodyErrors: ErrorRequestHandler = (error, _req, _res, next) => {
    const type = (error as { type?: string }).type;
    if (type === 'entity.too.large')
      return next(new HttpError(413, 'payload_too_large', `A beacon is at most ${MAX_BEACON_BYTES} bytes.`, { body: 'too large' }));
    next(error);
  };
  const beacons = new PerClientLimit(options.beaconsPerMinute, options.now ?? Date.now);
  router.post('/', body, bodyErrors, (req: Request, res: Response) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(typeof req.body === 'string' ? req.body : '');
    } catch {
      throw new HttpError(400, 'invalid_beacon', 'The beacon is not JSON.', { events: 'must be a JSON list of events' });
    }
    const beacon = parseBeacon(parsed);
    if ('fields' in beacon) throw new HttpError(400, 'invalid_beacon', 'The beacon has events the relay cannot read.', beacon.fields);
    const retryAfter = beacons.take(clientOf(req));
    if (retryAfter !== undefined) {
      service.metrics.limited += beacon.events.length;
      res.set({ 'Cache-Control': 'no-store', 'Retry-After': String(retryAfter) });
      throw new HttpError(429, 'too_many_beacons', `At most ${options.beaconsPerMinute} beacons a minute from one client; try again in ${retryAfter} s.`);
    }
    if (isVisitor(req)) service.record(beacon.events, { address: req.ip ?? '', userAgent: req.get('User-Agent')! });
    else service.metrics.ignored += beacon.events.length;
    res.set('Cache-Control', 'no-store').status(204).end();
  });
  return router;
}
