import type { CliCommand } from '../runtime/cli-command.ts';
import { queueCommand } from '../lead-queue/command.ts';
import { quarantined } from '../lead-queue/table.ts';
import { EnquiryOutbox, type OutboxEntry } from './outbox.ts';

const USAGE = `Usage:
  npm run relay -- outbox list [--status dead|queued|delivered|spam|all] [--limit N] [--json] [--agency <slug>]
      Enquiries in the outbox, newest first (default: dead letters). No personal data is shown.
  npm run relay -- outbox retry <originalId> [--agency <slug>]
      Queue a dead letter again with a fresh retry window; the running relay sends it within seconds.
  npm run relay -- outbox purge <originalId> [--agency <slug>]
  npm run relay -- outbox purge --dead [--older-than-days N] [--agency <slug>]
      Delete dead letters (and the personal data they hold) for good.
  npm run relay -- outbox quarantine [--limit N] [--json] [--agency <slug>]
      Enquiries held in the quarantine (their hidden honeypot field was filled in), newest first:
      kept whole, sent nowhere, erased LEAD_QUARANTINE_DAYS after acceptance.
  npm run relay -- outbox release <originalId> [--agency <slug>]
      Queue a quarantined enquiry for delivery (once); the CRM's copy is marked for the agent. One
      the same person also sent outside the quarantine (the same open home, or the same lead within
      a day) is recorded as that one instead and not sent again.
  With AGENCIES_FILE each agency has its own outbox: --agency <slug> names it (required then;
  \`npm run relay -- agencies\` lists the slugs).`;

/** `outbox list | retry | purge`: the operator's view of the enquiry outbox (same DATA_DIR as the relay). */
export const outboxCommand: CliCommand = queueCommand({
  name: 'outbox',
  summary: 'List, retry and purge enquiries in the delivery outbox (dead letters first); list and release quarantined ones.',
  usage: USAGE,
  statuses: ['queued', 'delivered', 'dead', 'spam', 'all'],
  open: (store, owner, clock) => new EnquiryOutbox(store, { owner, ...(clock ? { clock } : {}) }),
  purgeOne: (outbox, id) => outbox.purge(id),
  view: publicView,
  column: ['target', (view) => view.target],
  words: {
    counts: 'Outbox',
    empty: 'The outbox is empty.',
    none: (status) => `No ${status} enquiries.`,
    missing: (id) => `No enquiry ${id} in the outbox.`,
    notDead: (id, status) => `Enquiry ${id} is ${status}, not dead: only dead letters are retried.`,
    gone: (id) => `Enquiry ${id} could not be queued again (its content is gone).`,
    requeued: (id) => `Enquiry ${id} is queued again; the running relay sends it on its next poll.`,
    notPurged: (id, status) => `Enquiry ${id} is ${status}: only dead letters are purged.`,
    purgedMany: (count) => `Purged ${count} dead letter(s).`,
    purgedOne: (id) => `Purged dead letter ${id}.`,
    quarantineEmpty: 'No enquiries in the quarantine.',
    notQuarantined: (id, status) => `Enquiry ${id} is ${status}, not in the quarantine: only quarantined enquiries are released.`,
    released: (id) => `Enquiry ${id} is released from the quarantine and queued; the running relay sends it on its next poll, marked for the agent.`,
    repeated: (id) =>
      `Enquiry ${id} is released from the quarantine, but the same person sent the same lead (or registered for the same open home) outside it: recorded as that one, not sent again.`,
  },
});

/** What the CLI shows of an entry: ids, state and errors; never the person's details or message. */
function publicView(entry: OutboxEntry) {
  const target = entry.listingId !== null ? `listing ${entry.listingId}` : entry.agentId !== null ? `agent ${entry.agentId}` : '-';
  return {
    originalId: entry.originalId,
    status: quarantined(entry) ? 'quarantined' : entry.status,
    acceptedAt: new Date(entry.acceptedAt).toISOString(),
    attempts: entry.attempts,
    target,
    spamReason: entry.spamReason,
    lastError: entry.lastError,
    deliveredAt: entry.deliveredAt === null ? null : new Date(entry.deliveredAt).toISOString(),
    crmEnquiryId: entry.crmEnquiryId,
    deadAt: entry.deadAt === null ? null : new Date(entry.deadAt).toISOString(),
    personalDataErased: entry.payload === null,
  };
}
