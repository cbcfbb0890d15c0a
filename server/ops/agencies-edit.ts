import { createHash, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { CliContext } from '../runtime/cli-command.ts';
import { parseOptions, type ParsedOptions } from '../runtime/cli-options.ts';
import { ConfigError, type Config } from '../runtime/config.ts';
import { FileLockedError, withFileLock, writeFileAtomic } from '../runtime/atomic-file.ts';
import { createLogger } from '../runtime/log.ts';
import { readSecretFile, readSecretInput } from '../runtime/secret-input.ts';
import { parseSmtpUrl } from '../runtime/mail-settings.ts';
import {
  agencyDataDir,
  agencyFieldOptions,
  AGENCY_SLUG,
  parseAgencies,
  readAgenciesFile,
  readAgenciesJson,
  type AgencyEntry,
} from '../compose/agencies-file.ts';
import { CAPABILITIES, type Capability } from '../crm/access.ts';
import { agencyTokenSetting, type SharedKey } from '../crm/client.ts';
import { checkAccessToken, identifyAccessToken, tokenCheckClient, type TokenCheck } from '../crm/token-check.ts';
import { readOwnAccount } from '../listings/event-store.ts';
import { openStore, openStoreReadOnly, STORE_FILE, STORE_FILE_MODE, type Store } from '../store/store.ts';
import { SharedDatabase } from '../store/shared-database.ts';
import { sharedGateOfKey } from '../cluster/shared-gate.ts';
import { askRelayToReload, describeReload } from './relay-reload.ts';
import { widgetScriptTags } from './script-tags.ts';

/**
 * `agencies add | set | remove | check`: AGENCIES_FILE changed without opening it in an editor.
 * A token is read from standard input or a file, never the command line (other users see a
 * process's arguments, and shells keep them); a new token is checked with the CRM before it is
 * written; the file is replaced atomically (0600, the previous one kept as <file>.bak); the
 * running relay is asked to reload, and a file it refuses is put back as it was.
 */

const BACKUP_SUFFIX = '.bak';
const RELOAD_TIMEOUT_SECONDS = 30;

/** Options that would put a token on the command line: refused, with the reason. */
const TOKEN_ON_ARGV = ['token', 'access-token', 'accessToken'];
const TOKEN_ON_ARGV_MESSAGE =
  "a token is never taken on the command line: every user of this machine can read a process's arguments (ps, /proc) and the shell keeps them in its history. " +
  'Pipe it on standard input (`npm run relay -- agencies add <slug> … < token.txt`) or name a file with --token-file <path>.';

/** An SMTP URL with a password on the command line: refused like a token (ps, /proc and shell history show it). */
const SMTP_PASSWORD_ON_ARGV_MESSAGE =
  "--smtp-url: this URL holds a password, and a password is never taken on the command line: every user of this machine can read a process's arguments and the shell keeps them. " +
  'Put the whole URL in a file only you can read and name it with --smtp-url-file <path> (a URL without a password may be given as --smtp-url).';
/** The longest SMTP URL a file may hold. */
const MAX_SMTP_URL_FILE_BYTES = 4096;

type Document = { agencies: Array<Record<string, unknown>> };

export const EDIT_USAGE = `  npm run relay -- agencies add <slug> --name NAME [--origin ORIGIN …] [--site URL] [--token-file PATH]
      Adds an agency. Its access token is read from standard input (typed, not shown, on a
      terminal; or piped: < token.txt) or from --token-file, never from the command line. The
      token is first checked with the CRM (its account, its scopes, what it may read, its listings);
      a slug or token already in the file is refused. Then AGENCIES_FILE is replaced atomically
      (mode 0600; the previous file kept as AGENCIES_FILE.bak) and the running relay reloads it.
      Every field of an entry is an option: ${'{FIELDS}'}.
      An SMTP URL holding a password is read from --smtp-url-file PATH, never the command line.
  npm run relay -- agencies set <slug> [--name NAME] [--origin ORIGIN …] [--site URL] [--token-file PATH | --token-stdin]
      Changes an agency's fields (a list option replaces the list; an empty value, --site=,
      removes an optional field); a new token is checked with the CRM first and must open the
      same account. Written and reloaded as add does.
  npm run relay -- agencies remove <slug>
      Stops serving an agency (its queued enquiries are still delivered; its store stays in
      DATA_DIR/agencies/<slug>). Written and reloaded as add does.
  npm run relay -- agencies check [FILE] [--offline]
      Checks a file (default AGENCIES_FILE) as the relay would, changing nothing, and each token
      with the CRM (one request each: its account; --offline: none).`;

export function editUsage(): string {
  const fields = agencyFieldOptions()
    .map((option) => `--${option.option}${option.list ? ' (repeat it)' : ''}`)
    .join(', ');
  return EDIT_USAGE.replace('{FIELDS}', fields);
}

export const EDIT_COMMANDS = ['add', 'set', 'remove', 'check'] as const;
export type EditCommand = (typeof EDIT_COMMANDS)[number];

/** Exit codes: 0 done, 1 refused or failed, 2 wrong arguments. */
export async function runEdit(command: EditCommand, args: string[], context: CliContext): Promise<number> {
  const wrong = (message: string) => {
    context.err(`${message}\n\nUsage:\n${editUsage()}`);
    return 2;
  };
  const tokenFlag = args.find((arg) => TOKEN_ON_ARGV.some((name) => arg === `--${name}` || arg.startsWith(`--${name}=`)));
  if (tokenFlag) {
    context.err(`${tokenFlag.split('=')[0]}: ${TOKEN_ON_ARGV_MESSAGE}`);
    return 2;
  }
  if (smtpPasswordOnArgv(args)) {
    context.err(SMTP_PASSWORD_ON_ARGV_MESSAGE);
    return 2;
  }
  const fieldOptions = agencyFieldOptions();
  const options =
    command === 'check'
      ? parseOptions(args, ['offline'])
      : command === 'remove'
        ? parseOptions(args, [], ['timeout'])
        : parseOptions(
            args,
            command === 'set' ? ['token-stdin'] : [],
            ['token-file', 'smtp-url-file', 'timeout', ...fieldOptions.filter((option) => !option.list).map((option) => option.option)],
            fieldOptions.filter((option) => option.list).map((option) => option.option),
          );
  if (typeof options === 'string') return wrong(options);
  try {
    if (command === 'check') {
      if (options.positional.length > 1) return wrong('check takes at most one file');
      return await check(options.positional[0], options.flags.has('offline'), context);
    }
    const [slug, ...rest] = options.positional;
    if (slug === undefined) return wrong(`${command} needs the agency's slug`);
    if (rest.length) return wrong(`unexpected argument ${rest.join(' ')}`);
    if (!AGENCY_SLUG.test(slug)) return wrong(`"${slug}" is not a slug: 1 to 40 characters of a-z, 0-9 and - (it is the agency's path, /a/<slug>/)`);
    if (!context.config.agenciesFile) {
      context.err('AGENCIES_FILE is not set: name the file the relay reads (it is created by the first `agencies add` when it does not exist yet).');
      return 1;
    }
    const timeout = options.values.timeout === undefined ? RELOAD_TIMEOUT_SECONDS : Number(options.values.timeout);
    if (!(timeout > 0)) return wrong('--timeout must be a positive number of seconds');
    const file = resolve(context.config.agenciesFile);
    return await withFileLock(file, async () => {
      if (command === 'remove') return remove(file, slug, timeout, context);
      return command === 'add' ? add(file, slug, options, timeout, context) : set(file, slug, options, timeout, context);
    });
  } catch (error) {
    if (error instanceof ConfigError || error instanceof FileLockedError) {
      context.err(error.message);
      return 1;
    }
    throw error;
  }
}

/** The file as written and as validated; a file not there yet is an empty list (the first `add` creates it). */
function load(file: string): { document: Document; entries: AgencyEntry[]; text: string | null } {
  if (!existsSync(file)) return { document: { agencies: [] }, entries: [], text: null };
  const json = readAgenciesJson(file);
  let entries: AgencyEntry[];
  try {
    entries = parseAgencies(json);
  } catch (error) {
    if (error instanceof ConfigError)
      throw new ConfigError([...error.problems, 'AGENCIES_FILE: fix these first (`npm run relay -- agencies check` lists them); nothing was changed']);
    throw error;
  }
  return { document: json as Document, entries, text: readFileSync(file, 'utf8') };
}

/** The field options given, as entry fields (a list option's values split at commas too; an empty value: remove the field). */
/** Whether `--smtp-url VALUE` or `--smtp-url=VALUE` names a URL with a password. */
function smtpPasswordOnArgv(args: string[]): boolean {
  return args.some((arg, index) => {
    const value = arg.startsWith('--smtp-url=') ? arg.slice('--smtp-url='.length) : arg === '--smtp-url' ? args[index + 1] : undefined;
    if (value === undefined) return false;
    const target = parseSmtpUrl(value);
    // A URL too broken to read may still hold one: refused the same way when it has a user:password@ part.
    return typeof target === 'string' ? /:[^/@]*@/.test(value.replace(/^[a-z]+:\/\//i, '')) : target.password !== undefined;
  });
}

/** `--smtp-url-file <path>`: the agency's SMTP URL, password and all, read from a file (trimmed); never echoed. */
function smtpUrlFromFile(path: string): string | { error: string } {
  try {
    const size = statSync(path).size;
    if (size > MAX_SMTP_URL_FILE_BYTES) return { error: `--smtp-url-file ${path} is ${size} bytes: longer than an SMTP URL (is it the right file?)` };
    const value = readFileSync(path, 'utf8').trim();
    if (!value) return { error: `--smtp-url-file ${path} is empty` };
    return value;
  } catch (error) {
    return { error: `--smtp-url-file: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
  }
}

function fieldsFrom(options: ParsedOptions): Map<string, unknown> {
  const fields = new Map<string, unknown>();
  const smtpUrlFile = options.values['smtp-url-file'];
  if (smtpUrlFile !== undefined) {
    const url = smtpUrlFromFile(smtpUrlFile);
    if (typeof url !== 'string') throw new ConfigError([url.error]);
    fields.set('smtpUrl', url);
  }
  for (const option of agencyFieldOptions()) {
    if (option.list) {
      const values = options.lists[option.option];
      if (values)
        fields.set(option.field, [
          ...((fields.get(option.field) as string[] | undefined) ?? []),
          ...values
            .flatMap((value) => value.split(','))
            .map((value) => value.trim())
            .filter(Boolean),
        ]);
    } else if (options.values[option.option] !== undefined) {
      fields.set(option.field, options.values[option.option] === '' ? undefined : options.values[option.option]);
    }
  }
  return fields;
}

/** Whether two tokens are the same, compared in constant time on their digests (neither is ever printed). */
function sameToken(a: string, b: string): boolean {
  const digest = (token: string) => createHash('sha256').update(token).digest();
  return timingSafeEqual(digest(a), digest(b));
}

async function readToken(options: ParsedOptions, fromStdin: boolean, context: CliContext): Promise<string | { error: string } | undefined> {
  if (options.values['token-file'] !== undefined) return readSecretFile(options.values['token-file']);
  if (!fromStdin) return undefined;
  if (!context.stdin) return { error: 'no standard input to read the token from: use --token-file <path>' };
  return readSecretInput(context.stdin, context.err);
}

/**
 * The key's limits where the relays count them: DATA_DIR's store, and with DATABASE_URL the
 * per-second gate and the day's budget in PostgreSQL that every relay on the key shares (a check
 * counted in DATA_DIR's file alone would be invisible to the relays' budget). Close it after.
 */
async function openKeyLimits(config: Config): Promise<{ keyStore: Store; shared?: SharedKey; close(): Promise<void> }> {
  const keyStore = openStore(config.dataDir);
  if (!config.databaseUrl) return { keyStore, close: async () => keyStore.close() };
  let database: SharedDatabase;
  try {
    database = await SharedDatabase.open(config.databaseUrl, { poolSize: 2 });
  } catch (error) {
    keyStore.close();
    throw new ConfigError([`${(error as Error).message} (the token check counts against the key's budget there, as the relays do); nothing was changed`]);
  }
  return {
    keyStore,
    shared: { database, gate: sharedGateOfKey(config, database) },
    close: async () => {
      keyStore.close();
      await database.close();
    },
  };
}

/** Checks the token with the CRM (counted against the key's budget where the relays count it) and prints what it may do. */
async function checkWithCrm(token: string, slug: string, context: CliContext): Promise<TokenCheck> {
  const { config } = context;
  const limits = await openKeyLimits(config);
  const client = tokenCheckClient(config, limits.keyStore, createLogger({ level: 'silent' }), token, agencyTokenSetting(slug), limits.shared);
  try {
    const result = await checkAccessToken(client, config, { tokenSetting: agencyTokenSetting(slug) });
    context.out(describeCheck(result, config.crm.baseUrl!));
    return result;
  } finally {
    client.close();
    await limits.close();
  }
}

function describeCheck(result: TokenCheck, baseUrl: string): string {
  const can = (capability: Capability) => {
    const state = result.capabilities[capability];
    return `${capability} ${state.available === true ? 'yes' : state.available === false ? `REFUSED (${state.status})` : 'unknown'}`;
  };
  return [
    `Checked the token with the CRM (${baseUrl}):`,
    `  Account     ${result.account ? `${result.account.id}${result.account.name ? ` (${result.account.name})` : ''}` : 'could not be read'}`,
    `  Scopes      ${result.scopes === null ? 'could not be read' : result.scopes.length ? result.scopes.join(', ') : '(none listed)'}`,
    `  May read    ${(Object.keys(CAPABILITIES) as Capability[]).map(can).join(', ')}`,
    `  May write   enquiries ${result.capabilities.enquiries.available === true ? '(the holding area it may read; the first delivery proves the write)' : 'no'}`,
    `  Listings    ${result.listings === null ? 'could not be counted' : `${result.listings} for sale or lease now`}`,
  ].join('\n');
}

/**
 * Why a checked token must not be written (null: it may): the key or token refused, listings not
 * granted, the CRM out of reach, or its account served already under another slug.
 */
function refusal(result: TokenCheck, slug: string, accounts: Map<string, string>): string | null {
  const blocking = result.problems.find((problem) => problem.cause !== 'grant' || problem.capabilities.includes('listings'));
  if (blocking) return blocking.reason;
  if (result.unreachable) return `the CRM could not be asked (${result.unreachable}); try again`;
  const other = result.account ? accounts.get(result.account.id) : undefined;
  if (other !== undefined && other !== slug)
    return `this token opens CRM account ${result.account!.id}, which agency "${other}" already serves (one agency per account: its webhooks go to one of them)`;
  return null;
}

/** The CRM account each agency's store recorded (learned by the relay with its token). */
function knownAccounts(dataDir: string, entries: AgencyEntry[]): Map<string, string> {
  const accounts = new Map<string, string>();
  for (const entry of entries) {
    const dir = agencyDataDir(dataDir, entry.slug);
    if (!existsSync(join(dir, STORE_FILE))) continue;
    const store = openStoreReadOnly(dir);
    try {
      const account = readOwnAccount(store);
      if (account) accounts.set(account, entry.slug);
    } finally {
      store.close();
    }
  }
  return accounts;
}

async function add(file: string, slug: string, options: ParsedOptions, timeout: number, context: CliContext): Promise<number> {
  const { document, entries, text } = load(file);
  if (entries.some((entry) => entry.slug === slug)) {
    context.err(`"${slug}" is in AGENCIES_FILE already: change it with \`npm run relay -- agencies set ${slug} …\`, or choose another slug`);
    return 1;
  }
  const fields = fieldsFrom(options);
  if (fields.get('name') === undefined) {
    context.err("--name is required: the agency's name, as the operator view and the logs show it");
    return 2;
  }
  const entry: Record<string, unknown> = { slug };
  for (const [field, value] of fields) if (value !== undefined) entry[field] = value;
  // The fields checked before the token is asked for: a typo costs no token typed and no CRM request.
  try {
    parseAgencies({ agencies: [{ ...entry, accessToken: 'not read yet' }] });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    context.err(error.problems.map((problem) => problem.replace(/^AGENCIES_FILE: agencies\[0\](?: \("[^"]*"\))?: /, `"${slug}": `)).join('\n'));
    return 2;
  }
  const token = await readToken(options, true, context);
  if (token === undefined || typeof token !== 'string') {
    context.err(token?.error ?? 'no token given');
    return 1;
  }
  const owner = entries.find((other) => sameToken(other.accessToken, token));
  if (owner) {
    context.err(`this token is agency "${owner.slug}"'s already (one token is one agency's account); nothing was written`);
    return 1;
  }
  const next: Document = { ...document, agencies: [...document.agencies, { ...entry, accessToken: token }] };
  parseAgencies(next, { publicUrl: context.config.http.publicUrl });
  const result = await checkWithCrm(token, slug, context);
  const refused = refusal(result, slug, knownAccounts(context.config.dataDir, entries));
  if (refused) {
    context.err(`Not added: ${refused}. Nothing was written.`);
    return 1;
  }
  for (const problem of result.problems) context.err(`Warning: ${problem.reason}`);
  return commit(file, text, next, `Added "${slug}" to`, timeout, context, slug);
}

async function set(file: string, slug: string, options: ParsedOptions, timeout: number, context: CliContext): Promise<number> {
  const { document, entries, text } = load(file);
  const index = entries.findIndex((entry) => entry.slug === slug);
  if (index < 0) {
    context.err(`no agency "${slug}" in AGENCIES_FILE (\`npm run relay -- agencies\` lists them; \`agencies add\` adds one)`);
    return 1;
  }
  const fields = fieldsFrom(options);
  const token = await readToken(options, options.flags.has('token-stdin'), context);
  if (token !== undefined && typeof token !== 'string') {
    context.err(token.error);
    return 1;
  }
  if (fields.size === 0 && token === undefined) {
    context.err(
      `nothing to change: give a field (${agencyFieldOptions()
        .map((option) => `--${option.option}`)
        .join(', ')}) or a new token (--token-file, --token-stdin)\n\nUsage:\n${editUsage()}`,
    );
    return 2;
  }
  const changed: Record<string, unknown> = { ...document.agencies[index] };
  for (const [field, value] of fields) {
    if (value === undefined) delete changed[field];
    else changed[field] = value;
  }
  if (token !== undefined) {
    const owner = entries.find((other) => other.slug !== slug && sameToken(other.accessToken, token));
    if (owner) {
      context.err(`this token is agency "${owner.slug}"'s already (one token is one agency's account); nothing was written`);
      return 1;
    }
    changed.accessToken = token;
  }
  const next: Document = { ...document, agencies: document.agencies.map((raw, at) => (at === index ? changed : raw)) };
  parseAgencies(next, { publicUrl: context.config.http.publicUrl });
  if (token !== undefined) {
    const result = await checkWithCrm(token, slug, context);
    const accounts = knownAccounts(context.config.dataDir, entries);
    const refused = refusal(result, slug, accounts);
    // The agency's store holds its account's listings: another account's token would mix two agencies' data under one slug.
    const ownAccount = [...accounts].find(([, owner]) => owner === slug)?.[0];
    const otherAccount = ownAccount !== undefined && result.account && result.account.id !== ownAccount;
    if (refused || otherAccount) {
      context.err(
        `Not changed: ${refused ?? `this token opens CRM account ${result.account!.id}, but "${slug}" serves account ${ownAccount}: a token of another account is another agency (agencies add)`}. Nothing was written.`,
      );
      return 1;
    }
    for (const problem of result.problems) context.err(`Warning: ${problem.reason}`);
  }
  return commit(file, text, next, `Changed "${slug}" (${[...fields.keys(), ...(token === undefined ? [] : ['accessToken'])].join(', ')}) in`, timeout, context);
}

async function remove(file: string, slug: string, timeout: number, context: CliContext): Promise<number> {
  const { document, entries, text } = load(file);
  if (!entries.some((entry) => entry.slug === slug)) {
    context.err(`no agency "${slug}" in AGENCIES_FILE (\`npm run relay -- agencies\` lists them)`);
    return 1;
  }
  if (entries.length === 1) {
    context.err(`"${slug}" is the only agency: a relay with AGENCIES_FILE serves at least one. Stop the relay instead, or add another agency first.`);
    return 1;
  }
  const next: Document = { ...document, agencies: document.agencies.filter((raw) => raw.slug !== slug) };
  parseAgencies(next, { publicUrl: context.config.http.publicUrl });
  const code = await commit(file, text, next, `Removed "${slug}" from`, timeout, context);
  if (code === 0)
    context.out(`Its queued enquiries are still delivered; its store stays in ${agencyDataDir(context.config.dataDir, slug)} (back it up or delete it).`);
  return code;
}

/**
 * Writes the file atomically (0600, the previous one as <file>.bak) and asks the running relay to
 * reload it; a file the relay refuses is put back as it was, so the file and what is served agree.
 */
async function commit(
  file: string,
  previous: string | null,
  next: Document,
  done: string,
  timeout: number,
  context: CliContext,
  added?: string,
): Promise<number> {
  writeFileAtomic(file, `${JSON.stringify(next, null, 2)}\n`, { mode: STORE_FILE_MODE, ...(previous === null ? {} : { backup: `${file}${BACKUP_SUFFIX}` }) });
  context.out(`${done} ${file} (mode 0600${previous === null ? '' : `; the previous file is ${file}${BACKUP_SUFFIX}`}).`);
  const answer = await askRelayToReload(context.config.dataDir, timeout);
  if (answer.outcome === 'no relay') context.out('No relay is running on this DATA_DIR: it reads the file when it starts.');
  else if (answer.outcome === 'no answer') {
    context.err(`No answer from the relay (pid ${answer.pid}) within ${timeout} s; see its log (the file is written).`);
    return 1;
  } else if (!answer.report.ok) {
    if (previous !== null) writeFileAtomic(file, previous, { mode: STORE_FILE_MODE });
    context.err(
      `${describeReload(answer)}\n${previous === null ? `${file} stays as written: the relay did not start from it.` : 'The previous file is back in place; nothing changed.'}`,
    );
    return 1;
  } else context.out(describeReload(answer));
  if (added) {
    const base = context.config.http.publicUrl ?? 'https://<PUBLIC_URL>';
    context.out(`Its sites paste: ${widgetScriptTags(`${base}/a/${added}`).latest}`);
    context.out('It serves once its first sync is done: `npm run relay -- agencies` shows its state.');
  }
  return 0;
}

/** `agencies check [file]`: the file as the relay reads it, then each token's account with the CRM. */
async function check(path: string | undefined, offline: boolean, context: CliContext): Promise<number> {
  const file = path ?? context.config.agenciesFile;
  if (!file) {
    context.err('Name the file to check, or set AGENCIES_FILE.');
    return 2;
  }
  const entries = readAgenciesFile(file, { publicUrl: context.config.http.publicUrl });
  context.out(`${resolve(file)}: valid, ${entries.length} ${entries.length === 1 ? 'agency' : 'agencies'} (${entries.map((entry) => entry.slug).join(', ')}).`);
  if (offline) return 0;
  const { config } = context;
  if (!config.crm.baseUrl || !config.crm.apiKey || config.demoMode) {
    context.err('CRM_BASE_URL and CRM_API_KEY are not set: the tokens were not checked with the CRM (--offline checks the file alone).');
    return 1;
  }
  const limits = await openKeyLimits(config);
  const log = createLogger({ level: 'silent' });
  let failed = false;
  const accounts = new Map<string, string>();
  try {
    for (const entry of entries) {
      const client = tokenCheckClient(config, limits.keyStore, log, entry.accessToken, agencyTokenSetting(entry.slug), limits.shared);
      try {
        const identity = await identifyAccessToken(client, { tokenSetting: agencyTokenSetting(entry.slug) });
        if (identity.problem?.cause === 'key') {
          context.err(`The CRM refuses the API key: ${identity.problem.reason}. No token can be checked.`);
          return 1;
        }
        const other = identity.account ? accounts.get(identity.account) : undefined;
        const line = identity.problem
          ? `REFUSED: ${identity.problem.reason}`
          : identity.unreachable
            ? `not checked: ${identity.unreachable}`
            : other
              ? `account ${identity.account}, the same as "${other}" (one agency per account)`
              : `ok, account ${identity.account}`;
        if (identity.account && !other) accounts.set(identity.account, entry.slug);
        if (identity.problem || identity.unreachable || other) failed = true;
        context.out(`  ${entry.slug.padEnd(Math.max(...entries.map((candidate) => candidate.slug.length)))}  ${line}`);
      } finally {
        client.close();
      }
    }
  } finally {
    await limits.close();
  }
  return failed ? 1 : 0;
}
