import type { CliCommand, CliContext } from '../runtime/cli-command.ts';
import { parseOptions } from '../runtime/cli-options.ts';
import { closeStore, openStore } from '../store/store.ts';
import { attachPostgres } from '../store/postgres.ts';
import { agencySchema } from '../store/shared-database.ts';
import { readRelayId } from '../store/relay-identity.ts';
import { table } from '../enquiries/cli.ts';
import { SavedSearchStore, type SavedSearchEntry, type SavedSearchStatus } from './store.ts';

const STATUSES = ['queued', 'saved', 'dead', 'spam', 'all'] as const;

const USAGE = `Usage:
  npm run relay -- saved-searches list [--status dead|queued|saved|spam|all] [--limit N] [--json] [--agency <slug>]
      Saved searches ("Get alerts for this search"), newest first (default: dead ones), with the
      step each reached in the CRM. No personal data is shown, nor the search.
  npm run relay -- saved-searches retry <originalId> [--agency <slug>]
      Queue a dead saved search again, at the step it stopped at, with a fresh retry window.
  npm run relay -- saved-searches purge <originalId> [--agency <slug>]
  npm run relay -- saved-searches purge --dead [--older-than-days N] [--agency <slug>]
      Delete dead saved searches (and the personal data they hold) for good.
  With AGENCIES_FILE each agency has its own store: --agency <slug> names it (required then).`;

/** `saved-searches list | retry | purge`: the operator's view of saved searches on their way to the CRM (as `outbox` for enquiries). */
export const savedSearchesCommand: CliCommand = {
  name: 'saved-searches',
  summary: 'List, retry and purge saved searches on their way to the CRM (dead ones first).',
  usage: USAGE,
  async run(args, context) {
    const [sub, ...rest] = args;
    if (sub === undefined || sub === 'help' || sub === '--help') {
      context.out(USAGE);
      return sub === undefined ? 2 : 0;
    }
    const store = openStore(context.config.dataDir);
    try {
      // As `outbox`: with DATABASE_URL the rows are in PostgreSQL (the agency's schema with --agency).
      if (context.config.databaseUrl)
        await attachPostgres(store, context.config.databaseUrl, { schema: context.agency ? agencySchema(context.agency.slug) : undefined });
      const owner = context.config.databaseUrl ? readRelayId(context.agency?.keyDataDir ?? context.config.dataDir) : undefined;
      const searches = new SavedSearchStore(store, { owner });
      switch (sub) {
        case 'list':
          return await list(searches, rest, context);
        case 'retry':
          return await retry(searches, rest, context);
        case 'purge':
          return await purge(searches, rest, context);
        default:
          context.err(`Unknown saved-searches command "${sub}".\n${USAGE}`);
          return 2;
      }
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('DATABASE_URL:')) throw error;
      context.err(error.message);
      return 1;
    } finally {
      await closeStore(store);
    }
  },
};

async function list(searches: SavedSearchStore, args: string[], context: CliContext): Promise<number> {
  const options = parseOptions(args, ['json'], ['status', 'limit']);
  if (typeof options === 'string') return usageError(options, context);
  const status = (options.values.status ?? 'dead') as (typeof STATUSES)[number];
  if (!STATUSES.includes(status)) return usageError(`--status must be one of ${STATUSES.join(', ')}`, context);
  const limit = options.values.limit === undefined ? 100 : Number(options.values.limit);
  if (!Number.isInteger(limit) || limit < 1) return usageError('--limit must be a positive whole number', context);
  const entries = await searches.list({ status, limit });
  if (options.flags.has('json')) {
    context.out(JSON.stringify(entries.map(publicView), null, 2));
    return 0;
  }
  const counts = await searches.counts();
  context.out(`Saved searches: ${(Object.keys(counts) as SavedSearchStatus[]).map((key) => `${counts[key]} ${key}`).join(', ')}`);
  if (entries.length === 0) {
    context.out(status === 'all' ? 'There are no saved searches.' : `No ${status} saved searches.`);
    return 0;
  }
  const rows = entries.map((entry) => {
    const view = publicView(entry);
    return [view.originalId, view.status, view.acceptedAt, String(view.attempts), view.step, view.lastError ?? ''];
  });
  context.out(table(['originalId', 'status', 'accepted (UTC)', 'attempts', 'step', 'last error'], rows));
  return 0;
}

async function retry(searches: SavedSearchStore, args: string[], context: CliContext): Promise<number> {
  const [originalId, ...extra] = args;
  if (!originalId || extra.length > 0) return usageError('retry takes one originalId', context);
  const id = originalId.toLowerCase();
  const entry = await searches.get(id);
  if (!entry) {
    context.err(`No saved search ${id}.`);
    return 1;
  }
  if (entry.status !== 'dead') {
    context.err(`Saved search ${id} is ${entry.status}, not dead: only dead ones are retried.`);
    return 1;
  }
  if (!(await searches.requeue(id, Date.now()))) {
    context.err(`Saved search ${id} could not be queued again (its content is gone).`);
    return 1;
  }
  context.out(`Saved search ${id} is queued again at step "${entry.step}"; the running relay resumes it on its next poll.`);
  return 0;
}

async function purge(searches: SavedSearchStore, args: string[], context: CliContext): Promise<number> {
  const options = parseOptions(args, ['dead'], ['older-than-days']);
  if (typeof options === 'string') return usageError(options, context);
  if (options.flags.has('dead')) {
    if (options.positional.length > 0) return usageError('give either --dead or one originalId', context);
    const days = options.values['older-than-days'] === undefined ? 0 : Number(options.values['older-than-days']);
    if (!Number.isFinite(days) || days < 0) return usageError('--older-than-days must be a number of days', context);
    const removed = await searches.purgeDead(Date.now() - days * 24 * 60 * 60_000);
    context.out(`Purged ${removed} dead saved search(es).`);
    return 0;
  }
  const [originalId, ...extra] = options.positional;
  if (!originalId || extra.length > 0) return usageError('purge takes one originalId, or --dead', context);
  const id = originalId.toLowerCase();
  if ((await searches.purgeDead(Date.now(), id)) === 0) {
    const entry = await searches.get(id);
    context.err(entry ? `Saved search ${id} is ${entry.status}: only dead ones are purged.` : `No saved search ${id}.`);
    return 1;
  }
  context.out(`Purged dead saved search ${id}.`);
  return 0;
}

/** What the CLI shows of a saved search: ids, state, the CRM's ids and errors; never the person's details or the search. */
function publicView(entry: SavedSearchEntry) {
  const when = (at: number | null) => (at === null ? null : new Date(at).toISOString());
  return {
    originalId: entry.originalId,
    status: entry.status,
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

function usageError(message: string, context: CliContext): number {
  context.err(`${message}\n\n${USAGE}`);
  return 2;
}
