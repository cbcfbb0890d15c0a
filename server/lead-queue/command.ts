import type { CliCommand, CliContext } from '../runtime/cli-command.ts';
import { parseOptions } from '../runtime/cli-options.ts';
import { attachPostgres } from '../store/postgres.ts';
import { agencySchema, clockAsDatabaseClock, type DatabaseClock } from '../store/shared-database.ts';
import { readRelayId } from '../store/relay-identity.ts';
import { closeStore, openStore, type Store } from '../store/store.ts';

/**
 * The operator's `list | retry | purge | quarantine | release` over one of the relay's durable lead
 * queues (the enquiry outbox, the saved searches): the same store the relay uses (PostgreSQL with
 * DATABASE_URL, the agency's schema with --agency), the same options and the same checks, each
 * queue with its own words and the one column that tells its entries apart.
 */
export interface LeadQueue<Entry extends QueueEntry, Status extends string> {
  list(options: { status: Status | 'all'; limit: number }): Promise<Entry[]>;
  counts(): Promise<Record<Status | 'quarantined', number>>;
  get(originalId: string): Promise<Entry | undefined>;
  requeue(originalId: string, now: number): Promise<boolean>;
  purgeDead(deadBefore: number): Promise<number>;
  /** Quarantined entries (a honeypot filled in: kept whole, sent nowhere), newest first. */
  quarantined(limit: number): Promise<Entry[]>;
  /**
   * Queues a quarantined entry for delivery; false when it is not in the quarantine; 'repeat' when
   * it repeats an entry taken outside the quarantine (recorded as that one, not sent again).
   */
  release(originalId: string, now: number): Promise<boolean | 'repeat'>;
}

export interface QueueEntry {
  originalId: string;
  status: string;
}

/** What the command shows of an entry: ids, state and errors, never a person's details. */
export interface QueueView {
  originalId: string;
  status: string;
  acceptedAt: string;
  attempts: number;
  lastError: string | null;
}

export interface QueueCommandSpec<Queue extends LeadQueue<Entry, Status>, Entry extends QueueEntry, View extends QueueView, Status extends string> {
  name: string;
  summary: string;
  usage: string;
  /** The statuses `--status` takes, `all` among them. */
  statuses: ReadonlyArray<Status | 'all'>;
  /** The queue over `store`; `clock`, where given, is what its statements read as now on PostgreSQL (CliContext.now). */
  open(store: Store, owner: string | undefined, clock?: DatabaseClock): Queue;
  /** Deletes one dead entry; false when there is none of that id or it is not dead. */
  purgeOne(queue: Queue, originalId: string): Promise<boolean>;
  view(entry: Entry): View;
  /** The table's one column of the queue's own: its title and its cell. */
  column: [title: string, cell: (view: View) => string];
  words: {
    counts: string;
    empty: string;
    none(status: string): string;
    missing(id: string): string;
    notDead(id: string, status: string): string;
    gone(id: string): string;
    requeued(id: string, entry: Entry): string;
    notPurged(id: string, status: string): string;
    purgedMany(count: number): string;
    purgedOne(id: string): string;
    quarantineEmpty: string;
    notQuarantined(id: string, status: string): string;
    released(id: string): string;
    /** Released, found to repeat an entry already taken (LeadQueue.release's 'repeat'). */
    repeated?(id: string): string;
  };
}

export function queueCommand<Queue extends LeadQueue<Entry, Status>, Entry extends QueueEntry, View extends QueueView, Status extends string>(
  spec: QueueCommandSpec<Queue, Entry, View, Status>,
): CliCommand {
  const { words } = spec;
  const usageError = (message: string, context: CliContext): number => {
    context.err(`${message}\n\n${spec.usage}`);
    return 2;
  };

  async function list(queue: Queue, args: string[], context: CliContext): Promise<number> {
    const options = parseOptions(args, ['json'], ['status', 'limit']);
    if (typeof options === 'string') return usageError(options, context);
    const status = (options.values.status ?? 'dead') as Status | 'all';
    if (!spec.statuses.includes(status)) return usageError(`--status must be one of ${spec.statuses.join(', ')}`, context);
    const limit = options.values.limit === undefined ? 100 : Number(options.values.limit);
    if (!Number.isInteger(limit) || limit < 1) return usageError('--limit must be a positive whole number', context);
    const entries = await queue.list({ status, limit });
    return show(queue, entries, options.flags.has('json'), status === 'all' ? words.empty : words.none(status), context);
  }

  /** Entries as a table after the queue's counts, or as JSON: the views only, never a person's details. */
  async function show(queue: Queue, entries: Entry[], json: boolean, none: string, context: CliContext): Promise<number> {
    if (json) {
      context.out(JSON.stringify(entries.map(spec.view), null, 2));
      return 0;
    }
    const counts = await queue.counts();
    context.out(`${words.counts}: ${(Object.keys(counts) as Status[]).map((key) => `${counts[key]} ${key}`).join(', ')}`);
    if (entries.length === 0) {
      context.out(none);
      return 0;
    }
    const [title, cell] = spec.column;
    const rows = entries.map((entry) => {
      const view = spec.view(entry);
      return [view.originalId, view.status, view.acceptedAt, String(view.attempts), cell(view), view.lastError ?? ''];
    });
    context.out(table(['originalId', 'status', 'accepted (UTC)', 'attempts', title, 'last error'], rows));
    return 0;
  }

  async function quarantine(queue: Queue, args: string[], context: CliContext): Promise<number> {
    const options = parseOptions(args, ['json'], ['limit']);
    if (typeof options === 'string') return usageError(options, context);
    if (options.positional.length > 0) return usageError('quarantine takes no originalId (release takes one)', context);
    const limit = options.values.limit === undefined ? 100 : Number(options.values.limit);
    if (!Number.isInteger(limit) || limit < 1) return usageError('--limit must be a positive whole number', context);
    return show(queue, await queue.quarantined(limit), options.flags.has('json'), words.quarantineEmpty, context);
  }

  async function release(queue: Queue, args: string[], context: CliContext): Promise<number> {
    const [originalId, ...extra] = args;
    if (!originalId || extra.length > 0) return usageError('release takes one originalId', context);
    const id = originalId.toLowerCase();
    const released = await queue.release(id, nowOf(context));
    if (!released) {
      const entry = await queue.get(id);
      context.err(entry ? words.notQuarantined(id, entry.status) : words.missing(id));
      return 1;
    }
    context.out(
      released === 'repeat' ? (words.repeated?.(id) ?? `${id} repeats one already taken: recorded as that one, not sent again.`) : words.released(id),
    );
    return 0;
  }

  async function retry(queue: Queue, args: string[], context: CliContext): Promise<number> {
    const [originalId, ...extra] = args;
    if (!originalId || extra.length > 0) return usageError('retry takes one originalId', context);
    const id = originalId.toLowerCase();
    const entry = await queue.get(id);
    if (!entry) {
      context.err(words.missing(id));
      return 1;
    }
    if (entry.status !== 'dead') {
      context.err(words.notDead(id, entry.status));
      return 1;
    }
    if (!(await queue.requeue(id, nowOf(context)))) {
      context.err(words.gone(id));
      return 1;
    }
    context.out(words.requeued(id, entry));
    return 0;
  }

  async function purge(queue: Queue, args: string[], context: CliContext): Promise<number> {
    const options = parseOptions(args, ['dead'], ['older-than-days']);
    if (typeof options === 'string') return usageError(options, context);
    if (options.flags.has('dead')) {
      if (options.positional.length > 0) return usageError('give either --dead or one originalId', context);
      const days = options.values['older-than-days'] === undefined ? 0 : Number(options.values['older-than-days']);
      if (!Number.isFinite(days) || days < 0) return usageError('--older-than-days must be a number of days', context);
      context.out(words.purgedMany(await queue.purgeDead(nowOf(context) - days * 24 * 60 * 60_000)));
      return 0;
    }
    const [originalId, ...extra] = options.positional;
    if (!originalId || extra.length > 0) return usageError('purge takes one originalId, or --dead', context);
    const id = originalId.toLowerCase();
    if (!(await spec.purgeOne(queue, id))) {
      const entry = await queue.get(id);
      context.err(entry ? words.notPurged(id, entry.status) : words.missing(id));
      return 1;
    }
    context.out(words.purgedOne(id));
    return 0;
  }

  return {
    name: spec.name,
    summary: spec.summary,
    usage: spec.usage,
    async run(args, context) {
      const [sub, ...rest] = args;
      if (sub === undefined || sub === 'help' || sub === '--help') {
        context.out(spec.usage);
        return sub === undefined ? 2 : 0;
      }
      const store = openStore(context.config.dataDir);
      try {
        // With DATABASE_URL the rows are in PostgreSQL, shared by the relays: look there.
        // With --agency, that agency's schema: each agency's rows are kept apart there (shared-database.ts).
        if (context.config.databaseUrl)
          await attachPostgres(store, context.config.databaseUrl, { schema: context.agency ? agencySchema(context.agency.slug) : undefined });
        // The relay's owner name for its claims (its id in DATA_DIR), so the CLI may move rows the relay on this DATA_DIR claimed.
        const owner = context.config.databaseUrl ? readRelayId(context.agency?.keyDataDir ?? context.config.dataDir) : undefined;
        const queue = spec.open(store, owner, context.now ? clockAsDatabaseClock(context.now) : undefined);
        switch (sub) {
          case 'list':
            return await list(queue, rest, context);
          case 'retry':
            return await retry(queue, rest, context);
          case 'purge':
            return await purge(queue, rest, context);
          case 'quarantine':
            return await quarantine(queue, rest, context);
          case 'release':
            return await release(queue, rest, context);
          default:
            context.err(`Unknown ${spec.name} command "${sub}".\n${spec.usage}`);
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
}

/** Now by the command's clock (CliContext.now, else the system's). */
const nowOf = (context: CliContext): number => (context.now ?? Date.now)();

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
