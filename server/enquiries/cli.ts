import type { CliCommand, CliContext } from '../runtime/cli-command.ts';
import { parseOptions } from '../runtime/cli-options.ts';
import { closeStore, openStore } from '../store/store.ts';
import { attachPostgres } from '../store/postgres.ts';
import { agencySchema } from '../store/shared-database.ts';
import { readRelayId } from '../store/relay-identity.ts';
import { EnquiryOutbox, type OutboxEntry, type OutboxStatus } from './outbox.ts';

const STATUSES = ['queued', 'delivered', 'dead', 'spam', 'all'] as const;

const USAGE = `Usage:
  npm run relay -- outbox list [--status dead|queued|delivered|spam|all] [--limit N] [--json] [--agency <slug>]
      Enquiries in the outbox, newest first (default: dead letters). No personal data is shown.
  npm run relay -- outbox retry <originalId> [--agency <slug>]
      Queue a dead letter again with a fresh retry window; the running relay sends it within seconds.
  npm run relay -- outbox purge <originalId> [--agency <slug>]
  npm run relay -- outbox purge --dead [--older-than-days N] [--agency <slug>]
      Delete dead letters (and the personal data they hold) for good.
  With AGENCIES_FILE each agency has its own outbox: --agency <slug> names it (required then;
  \`npm run relay -- agencies\` lists the slugs).`;

/** `outbox list | retry | purge`: the operator's view of the enquiry outbox (same DATA_DIR as the relay). */
export const outboxCommand: CliCommand = {
  name: 'outbox',
  summary: 'List, retry and purge enquiries in the delivery outbox (dead letters first).',
  usage: USAGE,
  async run(args, context) {
    const [sub, ...rest] = args;
    if (sub === undefined || sub === 'help' || sub === '--help') {
      context.out(USAGE);
      return sub === undefined ? 2 : 0;
    }
    const store = openStore(context.config.dataDir);
    try {
      // With DATABASE_URL the outbox is in PostgreSQL, shared by the relays: look there.
      // With --agency, that agency's schema: each agency's rows are kept apart there (shared-database.ts).
      if (context.config.databaseUrl)
        await attachPostgres(store, context.config.databaseUrl, { schema: context.agency ? agencySchema(context.agency.slug) : undefined });
      // The relay's owner name for its claims (its id in DATA_DIR), so the CLI may move rows the relay on this DATA_DIR claimed, as before.
      const owner = context.config.databaseUrl ? readRelayId(context.agency?.keyDataDir ?? context.config.dataDir) : undefined;
      const outbox = new EnquiryOutbox(store, { owner });
      switch (sub) {
        case 'list':
          return await list(outbox, rest, context);
        case 'retry':
          return await retry(outbox, rest, context);
        case 'purge':
          return await purge(outbox, rest, context);
        default:
          context.err(`Unknown outbox command "${sub}".\n${USAGE}`);
          return 2;
      }
    } catch (error) {
      // DATABASE_URL unreachable or refused: one line, the password left out (postgres.ts).
      if (!(error instanceof Error) || !error.message.startsWith('DATABASE_URL:')) throw error;
      context.err(error.message);
      return 1;
    } finally {
      await closeStore(store);
    }
  },
};

async function list(outbox: EnquiryOutbox, args: string[], context: CliContext): Promise<number> {
  const options = parseOptions(args, ['json'], ['status', 'limit']);
  if (typeof options === 'string') return usageError(options, context);
  const status = (options.values.status ?? 'dead') as (typeof STATUSES)[number];
  if (!STATUSES.includes(status)) return usageError(`--status must be one of ${STATUSES.join(', ')}`, context);
  const limit = options.values.limit === undefined ? 100 : Number(options.values.limit);
  if (!Number.isInteger(limit) || limit < 1) return usageError('--limit must be a positive whole number', context);
  const entries = await outbox.list({ status, limit });
  if (options.flags.has('json')) {
    context.out(JSON.stringify(entries.map(publicView), null, 2));
    return 0;
  }
  const counts = await outbox.counts();
  context.out(`Outbox: ${(Object.keys(counts) as OutboxStatus[]).map((key) => `${counts[key]} ${key}`).join(', ')}`);
  if (entries.length === 0) {
    context.out(status === 'all' ? 'The outbox is empty.' : `No ${status} enquiries.`);
    return 0;
  }
  const rows = entries.map((entry) => {
    const view = publicView(entry);
    return [view.originalId, view.status, view.acceptedAt, String(view.attempts), view.target, view.lastError ?? ''];
  });
  context.out(table(['originalId', 'status', 'accepted (UTC)', 'attempts', 'target', 'last error'], rows));
  return 0;
}

async function retry(outbox: EnquiryOutbox, args: string[], context: CliContext): Promise<number> {
  const [originalId, ...extra] = args;
  if (!originalId || extra.length > 0) return usageError('retry takes one originalId', context);
  const id = originalId.toLowerCase();
  const entry = await outbox.get(id);
  if (!entry) {
    context.err(`No enquiry ${id} in the outbox.`);
    return 1;
  }
  if (entry.status !== 'dead') {
    context.err(`Enquiry ${id} is ${entry.status}, not dead: only dead letters are retried.`);
    return 1;
  }
  if (!(await outbox.requeue(id, Date.now()))) {
    context.err(`Enquiry ${id} could not be queued again (its content is gone).`);
    return 1;
  }
  context.out(`Enquiry ${id} is queued again; the running relay sends it on its next poll.`);
  return 0;
}

async function purge(outbox: EnquiryOutbox, args: string[], context: CliContext): Promise<number> {
  const options = parseOptions(args, ['dead'], ['older-than-days']);
  if (typeof options === 'string') return usageError(options, context);
  if (options.flags.has('dead')) {
    if (options.positional.length > 0) return usageError('give either --dead or one originalId', context);
    const days = options.values['older-than-days'] === undefined ? 0 : Number(options.values['older-than-days']);
    if (!Number.isFinite(days) || days < 0) return usageError('--older-than-days must be a number of days', context);
    const removed = await outbox.purgeDead(Date.now() - days * 24 * 60 * 60_000);
    context.out(`Purged ${removed} dead letter(s).`);
    return 0;
  }
  const [originalId, ...extra] = options.positional;
  if (!originalId || extra.length > 0) return usageError('purge takes one originalId, or --dead', context);
  const id = originalId.toLowerCase();
  if (!(await outbox.purge(id))) {
    const entry = await outbox.get(id);
    context.err(entry ? `Enquiry ${id} is ${entry.status}: only dead letters are purged.` : `No enquiry ${id} in the outbox.`);
    return 1;
  }
  context.out(`Purged dead letter ${id}.`);
  return 0;
}

/** What the CLI shows of an entry: ids, state and errors; never the person's details or message. */
function publicView(entry: OutboxEntry) {
  const target = entry.listingId !== null ? `listing ${entry.listingId}` : entry.agentId !== null ? `agent ${entry.agentId}` : '-';
  return {
    originalId: entry.originalId,
    status: entry.status,
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

/** Columns padded to their widest cell, a rule under the header. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

function usageError(message: string, context: CliContext): number {
  context.err(`${message}\n\n${USAGE}`);
  return 2;
}
