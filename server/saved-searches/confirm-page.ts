import { Router, type Request, type Response } from 'express';
import { escapeHtml } from '../pages/html.ts';
import type { Clock } from '../runtime/clock.ts';
import type { Logger } from '../runtime/log.ts';
import { confirmKeyOf, TOKEN_PATTERN } from './confirmation.ts';
import { AlertText } from './words.ts';
import type { SavedSearchMetrics } from './metrics.ts';
import type { SavedSearchEntry, SavedSearchStore } from './store.ts';

export interface ConfirmPageOptions {
  store: SavedSearchStore;
  metrics: SavedSearchMetrics;
  /** Wakes the CRM worker once a search is confirmed. */
  wake: () => void;
  agencyName: string;
  /** The agency's language (SITE_LANGUAGE): the page's for a search saved from a form in none the relay speaks, and for an unknown link. */
  language: string;
  log: Logger;
  now?: Clock;
  /** How long the confirming POST waits for the CRM to hold the search before answering "being set up" (ms; default 6 s). */
  settleMs?: number;
}

/**
 * The page the confirmation e-mail links to (`GET /alerts/confirm/<token>`): what was asked for,
 * and one button that confirms it (`POST`, then back to the page, which tells the outcome). A
 * button, not the link alone: mail scanners and link previews open links by themselves, and a
 * confirmation they made would not be the owner's. The page tells only the person holding the link
 * (its token is the relay's secret digest) what became of their request, including that they had
 * unsubscribed from the agency's e-mail, which the form never tells anyone.
 */
export function confirmPageRouter(options: ConfirmPageOptions): Router {
  const { store, metrics } = options;
  const now = options.now ?? Date.now;
  const settleMs = options.settleMs ?? 6_000;
  const log = options.log.child({ component: 'saved-search-confirmation' });
  const router = Router({ caseSensitive: true, strict: true });

  const find = async (token: string): Promise<SavedSearchEntry | undefined> =>
    TOKEN_PATTERN.test(token) ? store.byConfirmKey(confirmKeyOf(token)) : undefined;

  router.get('/:token', async (req: Request<{ token: string }>, res: Response) => {
    const entry = await find(req.params.token);
    page(res, entry, now(), options.agencyName, options.language);
  });

  router.post('/:token', async (req: Request<{ token: string }>, res: Response) => {
    const { token } = req.params;
    if (!TOKEN_PATTERN.test(token)) {
      page(res, undefined, now(), options.agencyName, options.language);
      return;
    }
    const key = confirmKeyOf(token);
    if (await store.confirm(key, now())) {
      metrics.confirmed++;
      const entry = await store.byConfirmKey(key);
      log.info({ originalId: entry?.originalId }, 'saved search confirmed by the owner of its address');
      options.wake();
      // A moment for the CRM to take it, so the page can say it is done; else it says it is on its way.
      const until = Date.now() + settleMs;
      for (let current = entry; current?.status === 'queued' && Date.now() < until; current = await store.byConfirmKey(key)) {
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
    // Back to the page (POST, redirect, GET): a reload never sends the form again.
    res.redirect(303, `${req.baseUrl}/${token}`);
  });

  return router;
}

type PageState = 'ask' | 'setting-up' | 'on' | 'unsubscribed' | 'stuck' | 'gone';

function stateOf(entry: SavedSearchEntry | undefined, at: number): PageState {
  if (!entry?.payload) return 'gone';
  switch (entry.status) {
    case 'unconfirmed':
      return entry.expiresAt !== null && entry.expiresAt > at ? 'ask' : 'gone';
    case 'queued':
      return 'setting-up';
    case 'saved':
      return 'on';
    case 'unsubscribed':
      return 'unsubscribed';
    case 'dead':
      return 'stuck';
    default:
      return 'gone';
  }
}

function page(res: Response, entry: SavedSearchEntry | undefined, at: number, agencyName: string, language: string): void {
  const state = stateOf(entry, at);
  // In the language the form was in (an unknown link's: the agency's).
  const say = new AlertText(entry?.payload?.language ?? language);
  const agency = agencyName;
  const what = entry?.payload ? say.describe(entry.payload.search) : '';
  const paragraph = (key: Parameters<AlertText['say']>[0], className?: string) =>
    `<p${className ? ` class="${className}"` : ''}>${escapeHtml(say.say(key, { agency, what }))}</p>`;
  const words = entry?.consent.words ? `<p>${escapeHtml(say.say('youAgreedTo'))} <q>${escapeHtml(entry.consent.words)}</q></p>` : '';
  const bodies: Record<PageState, { title: string; body: string }> = {
    ask: {
      title: say.say('askTitle'),
      body: `${paragraph('askBody')}${words}
<form method="post"><button type="submit">${escapeHtml(say.say('confirmButton'))}</button></form>
${paragraph('notYou', 'small')}`,
    },
    'setting-up': {
      title: say.say('settingUpTitle'),
      body: `${paragraph('settingUpBody')}
<p class="small"><a href="">${escapeHtml(say.say('checkAgain'))}</a></p>`,
    },
    on: { title: say.say('onTitle'), body: paragraph('onBody') },
    unsubscribed: { title: say.say('unsubscribedTitle'), body: `${paragraph('unsubscribedBody')}\n${paragraph('unsubscribedAsk')}` },
    stuck: { title: say.say('stuckTitle'), body: paragraph('stuckBody') },
    gone: { title: say.say('goneTitle'), body: paragraph('goneBody') },
  };
  const { title, body } = bodies[state];
  res
    .status(state === 'gone' ? 404 : 200)
    .set({ 'Cache-Control': 'no-store', 'X-Robots-Tag': 'noindex', 'Referrer-Policy': 'no-referrer' })
    .type('html')
    .send(
      `<!doctype html><html ${say.htmlAttributes()}><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><link rel="icon" href="data:,"><title>${escapeHtml(title)} · ${escapeHtml(agency)}</title>
<style>body{font:1.0625rem/1.6 system-ui,sans-serif;color:#1a1a1a;background:#f6f6f4;margin:0}main{max-width:36rem;margin:2rem auto;padding:1.5rem;background:#fff;border-radius:8px}
h1{font-size:1.5rem;line-height:1.3;margin:0 0 1rem}p.agency{margin:0 0 .5rem;color:#4a4a4a}.small{font-size:.9375rem;color:#4a4a4a}
button{font:inherit;font-weight:600;padding:.75rem 1.25rem;min-height:44px;border:0;border-radius:6px;background:#1f4e79;color:#fff;cursor:pointer}
button:focus-visible,a:focus-visible{outline:3px solid #c55a11;outline-offset:2px}a{color:#1f4e79}</style></head>
<body><main><p class="agency">${escapeHtml(agency)}</p><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`,
    );
}
