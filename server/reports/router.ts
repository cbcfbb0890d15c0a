import { createHash } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import type { Clock } from '../runtime/clock.ts';
import { DYNAMIC_EFFORT, EncodedBody, sendEncoded } from '../http/precompressed.ts';
import type { Logger } from '../runtime/log.ts';
import type { ReportLinks } from './links.ts';
import type { RenderedReport } from './page.ts';

/** Where a report is read: `<relay>/reports/<token>`, under `/a/<slug>` on a relay of many agencies. */
export const REPORTS_PATH = '/reports';

/** Headers every answer of these routes carries: never indexed, kept, or named to another site. */
const PRIVATE_HEADERS = {
  'Cache-Control': 'private, no-store',
  'X-Robots-Tag': 'noindex, nofollow',
  'Referrer-Policy': 'no-referrer',
};

/** The one answer for every link that opens nothing: it names no listing, so a guess learns nothing. */
const NOT_FOUND_STYLE = 'body{font:1rem/1.6 system-ui,sans-serif;color:#1f2328;max-width:36rem;margin:3rem auto;padding:0 1rem}';
const NOT_FOUND = `<!doctype html><html lang="en-AU"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><link rel="icon" href="data:,"><title>Report not found</title><style>${NOT_FOUND_STYLE}</style></head>
<body><main><h1>Report not found</h1><p>This report link does not work. It may have expired or been replaced: ask your agent for a new one.</p></main></body></html>`;

export interface ReportRouterOptions {
  links: ReportLinks;
  /** The report of one listing, or undefined when the listing is no longer known. */
  render(listingId: number): Promise<RenderedReport | undefined>;
  /** Origins the report's photos may come from besides the relay itself (PUBLIC_URL's). */
  photoOrigins: string[];
  log: Logger;
  now: Clock;
}

export function reportRouter(options: ReportRouterOptions): Router {
  const router = Router({ caseSensitive: true, strict: true });
  const notFound = (res: Response) => {
    res
      .status(404)
      .set(PRIVATE_HEADERS)
      .set('Content-Security-Policy', csp(hashOf(NOT_FOUND_STYLE), []))
      .type('html')
      .send(NOT_FOUND);
  };
  router.get(`${REPORTS_PATH}/:token`, async (req: Request<{ token: string }>, res: Response) => {
    const listingId = await options.links.listingOf(req.params.token, options.now());
    const report = listingId === undefined ? undefined : await options.render(listingId);
    if (!report) return notFound(res);
    // Which listing's report was read, never by whom (no address, no token).
    options.log.debug({ listingId }, 'seller report read');
    res.status(200).set(PRIVATE_HEADERS).set('Content-Security-Policy', csp(report.styleHash, options.photoOrigins)).type('html');
    // A year of days with its tables is some 100 KB of HTML: sent compressed (the features are mounted before the app's compression).
    sendEncoded(req, res, new EncodedBody(Buffer.from(report.html), DYNAMIC_EFFORT));
  });
  return router;
}

/** No script at all; the one style sheet by its hash; images from the relay (its photo mirror). */
function csp(styleHash: string, photoOrigins: string[]): string {
  return [
    "default-src 'none'",
    `style-src '${styleHash}'`,
    ['img-src', "'self'", 'data:', ...photoOrigins].join(' '),
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function hashOf(css: string): string {
  return `sha256-${createHash('sha256').update(css).digest('base64')}`;
}
