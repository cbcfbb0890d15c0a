import { usageError, wantsHelp, type CliCommand, type CliContext } from '../runtime/cli-command.ts';
import { parseOptions } from '../runtime/cli-options.ts';
import type { Config } from '../runtime/config.ts';
import { table } from '../lead-queue/command.ts';
import { ListingCache } from '../listings/cache.ts';
import { attachPostgres } from '../store/postgres.ts';
import { agencySchema } from '../store/shared-database.ts';
import { closeStore, openStore, type Store } from '../store/store.ts';
import { DEFAULT_LINK_DAYS, MAX_LINK_DAYS, ReportLinks } from './links.ts';
import { REPORTS_PATH } from './router.ts';

const USAGE = `Usage:
  npm run relay -- reports link <listing id> [--days N] [--agency <slug>]
      Make the seller's report link for a listing and print it (shown this once: only its digest is
      kept). It works for N days (default ${DEFAULT_LINK_DAYS}, at most ${MAX_LINK_DAYS}); a listing that had a link gets a
      new one, and the old one stops working.
  npm run relay -- reports revoke <listing id> [--agency <slug>]
      Stop the listing's link at once.
  npm run relay -- reports list [--agency <slug>]
      Every listing's link: its address, when it was made, when it expires or was revoked. No token.
  With AGENCIES_FILE each agency has its own links: --agency <slug> names it (required then).`;

/** `reports link | revoke | list`: the agent's seller report links (server/reports/links.ts), on the relay's DATA_DIR. */
export const reportsCommand: CliCommand = {
  name: 'reports',
  summary: "Make, revoke and list the sellers' campaign report links (one per listing).",
  usage: USAGE,
  async run(args, context) {
    const [sub, ...rest] = args;
    if (sub === undefined || wantsHelp(args)) {
      context.out(USAGE);
      return sub === undefined ? 2 : 0;
    }
    if (!['link', 'revoke', 'list'].includes(sub)) return usageError(reportsCommand, `Unknown reports command "${sub}".`, context);
    const options = parseOptions(rest, [], ['days']);
    if (typeof options === 'string') return usageError(reportsCommand, options, context);
    const store = openStore(context.config.dataDir);
    try {
      // With DATABASE_URL the links are in PostgreSQL (the agency's schema), as every relay reads them.
      if (context.config.databaseUrl)
        await attachPostgres(store, context.config.databaseUrl, { schema: context.agency ? agencySchema(context.agency.slug) : undefined });
      const links = new ReportLinks(store);
      const now = (context.now ?? Date.now)();
      if (sub === 'list') return await list(links, store, context, now);
      const [id, ...extra] = options.positional;
      const listingId = id !== undefined && /^[1-9]\d{0,15}$/.test(id) ? Number(id) : undefined;
      if (listingId === undefined || extra.length > 0) return usageError(reportsCommand, `reports ${sub} needs one listing id (a whole number)`, context);
      if (sub === 'revoke') {
        const revoked = await links.revoke(listingId, now);
        context.out(
          revoked
            ? `The report link of listing ${listingId} is revoked: it answers "not found" from now on.`
            : `Listing ${listingId} has no working report link.`,
        );
        return revoked ? 0 : 1;
      }
      const address = addressOf(store, listingId);
      if (address === undefined) {
        context.err(
          `Listing ${listingId} is not in this agency's listing cache: check the id (the number in the listing's page address) and that the relay has synced${context.agency ? ` agency "${context.agency.slug}"` : ''}.`,
        );
        return 1;
      }
      const daysText = options.values.days;
      const days = daysText === undefined ? DEFAULT_LINK_DAYS : /^\d{1,4}$/.test(daysText) ? Number(daysText) : NaN;
      if (!(days >= 1 && days <= MAX_LINK_DAYS)) return usageError(reportsCommand, `--days must be a whole number from 1 to ${MAX_LINK_DAYS}`, context);
      const { token, link } = await links.create(listingId, { now, days });
      context.out(`${reportBase(context.config, context.agency?.slug)}${REPORTS_PATH}/${token}`);
      context.err(
        `Report for ${address}: works until ${new Date(link.expiresAt).toISOString().slice(0, 10)}. The link is shown only now; any earlier link of this listing no longer works.`,
      );
      return 0;
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('DATABASE_URL:')) throw error;
      context.err(error.message);
      return 1;
    } finally {
      await closeStore(store);
    }
  },
};

async function list(links: ReportLinks, store: Store, context: CliContext, now: number): Promise<number> {
  const rows = await links.list();
  if (rows.length === 0) {
    context.out('No report links yet: `npm run relay -- reports link <listing id>` makes one.');
    return 0;
  }
  const day = (at: number) => new Date(at).toISOString().slice(0, 10);
  const state = (row: (typeof rows)[number]) =>
    row.revokedAt !== null ? `revoked ${day(row.revokedAt)}` : row.expiresAt <= now ? `expired ${day(row.expiresAt)}` : `expires ${day(row.expiresAt)}`;
  context.out(
    table(
      ['listing', 'address', 'made', 'state'],
      rows.map((row) => [String(row.listingId), addressOf(store, row.listingId) ?? '(no longer listed)', day(row.createdAt), state(row)]),
    ),
  );
  return 0;
}

/** The listing's address as the agency shows it; undefined when the cache does not hold it (by its own id, not an old property id). */
function addressOf(store: Store, listingId: number): string | undefined {
  const listing = new ListingCache(store).getListing(listingId);
  return listing?.id === listingId ? (listing.fields.address.display ?? `listing ${listingId}`) : undefined;
}

/** Where sellers reach the agency's routes: PUBLIC_URL (else the relay's own port on this machine), /a/<slug> on a relay of many agencies. */
export function reportBase(config: Config, slug: string | undefined): string {
  const base = (config.http.publicUrl ?? `http://localhost:${config.http.port}`).replace(/\/+$/, '');
  return slug ? `${base}/a/${slug}` : base;
}
