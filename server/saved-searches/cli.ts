import type { CliCommand } from '../runtime/cli-command.ts';
import { queueCommand } from '../lead-queue/command.ts';
import { quarantined } from '../lead-queue/table.ts';
import { SavedSearchStore, type SavedSearchEntry } from './store.ts';

const USAGE = `Usage:
  npm run relay -- saved-searches list [--status dead|queued|saved|spam|all] [--limit N] [--json] [--agency <slug>]
      Saved searches ("Get alerts for this search"), newest first (default: dead ones), with the
      step each reached in the CRM. No personal data is shown, nor the search.
  npm run relay -- saved-searches retry <originalId> [--agency <slug>]
      Queue a dead saved search again, at the step it stopped at, with a fresh retry window.
  npm run relay -- saved-searches purge <originalId> [--agency <slug>]
  npm run relay -- saved-searches purge --dead [--older-than-days N] [--agency <slug>]
      Delete dead saved searches (and the personal data they hold) for good.
  npm run relay -- saved-searches quarantine [--limit N] [--json] [--agency <slug>]
      Saved searches held in the quarantine (their hidden honeypot field was filled in), newest
      first: kept whole, sent nowhere, erased LEAD_QUARANTINE_DAYS after acceptance.
  npm run relay -- saved-searches release <originalId> [--agency <slug>]
      Queue a quarantined saved search for the CRM (once), with a note marking it for the agent.
  With AGENCIES_FILE each agency has its own store: --agency <slug> names it (required then).`;

/** `saved-searches list | retry | purge`: the operator's view of saved searches on their way to the CRM (as `outbox` for enquiries). */
export const savedSearchesCommand: CliCommand = queueCommand({
  name: 'saved-searches',
  summary: 'List, retry and purge saved searches on their way to the CRM (dead ones first); list and release quarantined ones.',
  usage: USAGE,
  statuses: ['queued', 'saved', 'dead', 'spam', 'all'],
  open: (store, owner) => new SavedSearchStore(store, { owner }),
  purgeOne: async (searches, id) => (await searches.purgeDead(Date.now(), id)) > 0,
  view: publicView,
  column: ['step', (view) => view.step],
  words: {
    counts: 'Saved searches',
    empty: 'There are no saved searches.',
    none: (status) => `No ${status} saved searches.`,
    missing: (id) => `No saved search ${id}.`,
    notDead: (id, status) => `Saved search ${id} is ${status}, not dead: only dead ones are retried.`,
    gone: (id) => `Saved search ${id} could not be queued again (its content is gone).`,
    requeued: (id, entry) => `Saved search ${id} is queued again at step "${entry.step}"; the running relay resumes it on its next poll.`,
    notPurged: (id, status) => `Saved search ${id} is ${status}: only dead ones are purged.`,
    purgedMany: (count) => `Purged ${count} dead saved search(es).`,
    purgedOne: (id) => `Purged dead saved search ${id}.`,
    quarantineEmpty: 'No saved searches in the quarantine.',
    notQuarantined: (id, status) => `Saved search ${id} is ${status}, not in the quarantine: only quarantined saved searches are released.`,
    released: (id) => `Saved search ${id} is released from the quarantine and queued; the running relay takes it to the CRM on its next poll.`,
  },
});

/** What the CLI shows of a saved search: ids, state, the CRM's ids and errors; never the person's details or the search. */
function publicView(entry: SavedSearchEntry) {
  const when = (at: number | null) => (at === null ? null : new Date(at).toISOString());
  return {
    originalId: entry.originalId,
    status: quarantined(entry) ? 'quarantined' : entry.status,
    step: entry.step,
    acceptedAt: new Date(entry.acceptedAt).toISOString(),
    attempts: entry.attempts,
    spamReason: entry.spamReason,
    lastError: entry.lastError,
    crmContactId: entry.personId,
    crmRequirementId: entry.searchId,
    savedAt: when(entry.savedAt),
    deadAt: when(entry.deadAt),
    personalDataErased: entry.payload === null,
  };
}
