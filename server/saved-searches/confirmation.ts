import { createHash } from 'node:crypto';
import { KEYED_PREFIX, type LeadKeys } from '../enquiries/lead-keys.ts';
import { MailError, type Mailer, type MailMessage } from '../mail/mailer.ts';
import { escapeHtml } from '../pages/html.ts';
import type { Clock } from '../runtime/clock.ts';
import type { Logger } from '../runtime/log.ts';
import type { Worker } from '../runtime/worker.ts';
import { isStoreUnavailable } from '../store/store.ts';
import { AlertText } from './words.ts';
import type { SavedSearchMetrics } from './metrics.ts';
import type { SavedSearchEntry, SavedSearchStore } from './store.ts';

/**
 * Double opt-in for saved searches: nothing reaches the CRM until the owner of the address follows
 * the link the relay e-mails them (Australia's Spam Act asks for consent the sender can show; the
 * confirmation is that proof, and itself carries no marketing). This module mails the link
 * (durably: an unconfirmed row holds when its e-mail is due, so a relay that stops or an SMTP
 * server that is down delays it, never loses it) and erases the searches nobody confirmed in time.
 * The link's page is confirm-page.ts.
 */

/** Where the link's page is, under the agency's relay address. */
export const CONFIRM_PATH = '/alerts/confirm';

/** A link's token: 64 hex characters. */
export const TOKEN_PATTERN = /^[0-9a-f]{64}$/;

/**
 * The link's token for a saved search: the relay's keyed digest of its originalId. Never stored
 * (its SHA-256 is: confirmKeyOf), yet the same every time, so an e-mail sent again carries the
 * same link and either copy works.
 */
export function confirmationToken(keys: LeadKeys, originalId: string): string {
  return keys.keyed(`saved-search-confirmation:${originalId}`).slice(KEYED_PREFIX.length);
}

/** What the store keeps of a token, and looks a link up by. */
export function confirmKeyOf(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export interface ConfirmationWorkerDeps {
  store: SavedSearchStore;
  metrics: SavedSearchMetrics;
  /** The agency's SMTP mailer; undefined: none configured (e-mail confirmation is then not offered, and nothing is due). */
  mailer: Mailer | undefined;
  log: Logger;
  now?: Clock;
  /** The words of the e-mail: the agency as visitors know it, where its relay answers, its time zone for the link's last day. */
  agencyName: string;
  relayBase: () => string;
  timeZone: string;
  /** The agency's language (SITE_LANGUAGE): the e-mail's when the form sent none the relay speaks. */
  language: string;
  /** How often (ms) due e-mails and lapsed links are looked for besides wake() (a retry's due time, another relay's rows); default 15 s. */
  pollMs?: number;
  /** How long a claim on a due e-mail lasts unless renewed (ms); default MAIL_LEASE_MS. */
  mailLeaseMs?: number;
}

export interface ConfirmationWorker extends Worker {
  /** A saved search was accepted, or released from quarantine: its e-mail is due now. */
  wake(): void;
  /** One pass now (due e-mails sent, lapsed links expired), awaited: tests drive the worker with this. */
  drain(): Promise<void>;
}

/** E-mails sent per pass: a burst of saved searches is mailed over a few passes, not at once. */
const MAILS_PER_PASS = 10;
/** A failed e-mail is tried again after 30 s, doubling up to 30 minutes, until its link lapses. */
const MAIL_RETRY_BASE_MS = 30_000;
const MAIL_RETRY_MAX_MS = 30 * 60_000;
/**
 * How long a pass's claim on a due e-mail lasts unless renewed: a heartbeat renews the claims of the
 * e-mails still to send every third of it while the pass runs (an SMTP server may take a minute per
 * message), so a relay that dies is taken over by another within this, and a relay that starts
 * again takes its own dead claims back at once (releaseOwnMailClaims).
 */
export const MAIL_LEASE_MS = 30_000;

export function createConfirmationWorker(deps: ConfirmationWorkerDeps): ConfirmationWorker {
  const { store, metrics, mailer } = deps;
  const log = deps.log.child({ component: 'saved-search-confirmation' });
  const now = deps.now ?? Date.now;
  const pollMs = deps.pollMs ?? 15_000;
  const mailLeaseMs = deps.mailLeaseMs ?? MAIL_LEASE_MS;
  // The first pass of this process takes back what its previous process claimed (see pass).
  let ownClaimsReleased = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = true;

  async function pass(): Promise<void> {
    // This process claims nothing before this: every claim in this owner's name is a dead process's (a kill, a crash).
    if (!ownClaimsReleased) {
      const released = await store.releaseOwnMailClaims(now());
      ownClaimsReleased = true;
      if (released > 0) log.info({ released }, 'confirmation e-mails the previous process was sending are due again');
    }
    // A look first: an idle relay writes nothing (no write lock taken every few seconds).
    const work = await store.confirmationWork(now());
    if (work.expired) {
      const expired = await store.expireUnconfirmed(now());
      metrics.expired += expired;
      metrics.erased += expired;
      if (expired > 0) log.info({ expired }, 'unconfirmed saved searches expired: their links lapsed, their personal data erased');
    }
    if (!mailer || !work.mailDue) return;
    const keys = await store.keys();
    for (;;) {
      const due = await store.claimMailDue(now(), MAILS_PER_PASS, mailLeaseMs);
      await sendWhileClaimed(due, keys);
      if (due.length < MAILS_PER_PASS || stopped) return;
    }
  }

  /** Sends one claimed batch in turn, renewing the claims of those still to send (the heartbeat) so none lapses while this process lives. */
  async function sendWhileClaimed(due: SavedSearchEntry[], keys: LeadKeys): Promise<void> {
    const unsent = new Set(due.map((entry) => entry.originalId));
    const heartbeat = setInterval(() => {
      store.renewMailClaims([...unsent], now(), mailLeaseMs).catch((error: unknown) => {
        log.warn({ err: error }, 'renewing the claims on confirmation e-mails failed; another relay may send them too once they lapse');
      });
    }, mailLeaseMs / 3);
    heartbeat.unref();
    try {
      for (const entry of due) {
        await send(entry, keys);
        unsent.delete(entry.originalId);
      }
    } finally {
      clearInterval(heartbeat);
    }
  }

  async function send(entry: SavedSearchEntry, keys: LeadKeys): Promise<void> {
    if (!entry.payload || entry.expiresAt === null) return;
    const link = `${deps.relayBase()}${CONFIRM_PATH}/${confirmationToken(keys, entry.originalId)}`;
    try {
      await mailer!.send(confirmationMessage(entry, { link, agencyName: deps.agencyName, timeZone: deps.timeZone, language: deps.language }));
      await store.markMailSent(entry.originalId, now());
      metrics.confirmationMail.sent++;
      log.info({ originalId: entry.originalId, attempts: entry.mailAttempts }, 'saved-search confirmation e-mail sent');
    } catch (error) {
      if (isStoreUnavailable(error)) throw error;
      const retryable = !(error instanceof MailError) || error.retryable;
      const reason = error instanceof Error ? error.message : String(error);
      if (retryable) {
        const delay = Math.min(MAIL_RETRY_BASE_MS * 2 ** Math.max(0, entry.mailAttempts - 1), MAIL_RETRY_MAX_MS);
        await store.mailRetryLater(entry.originalId, now() + delay, `confirmation e-mail failed: ${reason}`);
        metrics.confirmationMail.failed++;
        log.warn(
          { originalId: entry.originalId, attempts: entry.mailAttempts, reason, retryInMs: delay },
          'saved-search confirmation e-mail failed; will retry',
        );
      } else {
        await store.mailRetryLater(entry.originalId, null, `confirmation e-mail refused: ${reason}`);
        metrics.confirmationMail.refused++;
        log.error(
          { originalId: entry.originalId, reason },
          'saved-search confirmation e-mail refused by the SMTP server; the search waits unconfirmed until its link lapses',
        );
      }
    }
  }

  function run(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        try {
          await pass();
        } catch (error) {
          log.warn({ err: error }, 'saved-search confirmation pass failed; will retry');
        }
      } while (again && !stopped);
    })().finally(() => {
      running = undefined;
    });
    return running;
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      void run().finally(schedule);
    }, pollMs);
    timer.unref();
  }

  return {
    name: 'saved-search-confirmation',
    start() {
      if (!stopped) return;
      stopped = false;
      // Started again in this process (stop waited for the pass): any claim left in its name is dead.
      ownClaimsReleased = false;
      void run().finally(schedule);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
    wake() {
      if (!stopped) void run();
    },
    drain: () => run(),
  };
}

/**
 * The confirmation e-mail: who asks (the agency), for what (the search), the one link, until when,
 * and what happens if it is ignored. No marketing, no listing, no tracking pixel: it is the proof
 * of consent, not an alert.
 */
export function confirmationMessage(entry: SavedSearchEntry, words: { link: string; agencyName: string; timeZone: string; language: string }): MailMessage {
  const payload = entry.payload!;
  const firstName = payload.fullName.trim().split(/\s+/)[0] ?? payload.fullName;
  // In the language the form was in, else the agency's (SITE_LANGUAGE).
  const say = new AlertText(payload.language ?? words.language);
  const what = say.describe(payload.search);
  const until = say.date(entry.expiresAt!, words.timeZone);
  const agency = words.agencyName;
  const hello = say.say('hello', { name: firstName });
  const asked = say.say('asked', { agency, what });
  const lapses = say.say('linkWorksUntil', { date: until });
  const text = [hello, '', asked, '', say.say('openLink'), words.link, '', lapses, '', agency].join('\n');
  const html = `<!doctype html><html ${say.htmlAttributes()}><body style="font-family:system-ui,sans-serif;line-height:1.5;color:#1a1a1a">
<p>${escapeHtml(hello)}</p>
<p>${escapeHtml(asked)}</p>
<p><a href="${escapeHtml(words.link)}" style="display:inline-block;padding:12px 20px;background:#1f4e79;color:#fff;text-decoration:none;border-radius:4px">${escapeHtml(say.say('confirmButton'))}</a></p>
<p>${escapeHtml(say.say('orOpenLink'))} <a href="${escapeHtml(words.link)}">${escapeHtml(words.link)}</a></p>
<p>${escapeHtml(lapses)}</p>
<p>${escapeHtml(agency)}</p>
</body></html>`;
  return {
    to: payload.email,
    subject: say.say('subject', { agency }),
    text,
    html,
    // A message sent because someone asked on a form, not by a person: auto-responders stay quiet.
    headers: { 'Auto-Submitted': 'auto-generated' },
  };
}
