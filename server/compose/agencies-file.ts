import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { ConfigError, type Config } from '../runtime/config.ts';
import { findJsonSyntaxError } from '../runtime/json-syntax.ts';

/** A slug is a path segment: /a/<slug>/. */
export const AGENCY_SLUG = /^[a-z0-9-]{1,40}$/;
/** The file holds every agency's access token: its owner alone may read or write it (like the store). */
const PRIVATE_MODE_MASK = 0o077;

const origin = z
  .url({ protocol: /^https?$/, message: 'each entry must be an origin such as https://agency.example' })
  .refine((value) => {
    // Zod runs this even when the URL check failed: an unparsable value is that check's to report.
    if (!URL.canParse(value)) return true;
    const url = new URL(value);
    return url.pathname === '/' && !url.search && !url.hash;
  }, 'each entry must be an origin only (scheme, host and port, no path)')
  .transform((value) => new URL(value).origin);

const agencySchema = z.strictObject({
  slug: z.string().regex(AGENCY_SLUG, 'must be 1 to 40 characters of a-z, 0-9 and -'),
  name: z.string().trim().min(1, 'must not be empty').max(120, 'must be at most 120 characters'),
  accessToken: z.string().min(1, 'must not be empty'),
  allowedOrigins: z.array(origin).default([]),
  siteUrl: z
    .url({ protocol: /^https?$/, message: "must be an http(s) URL such as https://agency.example (the agency's own site)" })
    .refine((value) => !/[?#]/.test(value), 'must not have a query or fragment')
    .transform((value) => value.replace(/\/+$/, ''))
    .optional(),
});

const fileSchema = z.strictObject({ agencies: z.array(z.unknown()) });

/** Short names the CLI takes beside each field's own (`--origin` for `--allowed-origins`). */
const OPTION_ALIASES: Record<string, string> = { origin: 'allowedOrigins', site: 'siteUrl' };

/** One field of an entry as `agencies add` and `agencies set` take it: `--<option> value`, repeated for a list. */
export interface AgencyFieldOption {
  option: string;
  field: string;
  list: boolean;
  required: boolean;
}

/**
 * Every field of an entry but its slug and token, as CLI options (kebab-case, and the aliases):
 * read from the schema, so a field added to it is an option of the CLI with nothing else to change.
 */
export function agencyFieldOptions(): AgencyFieldOption[] {
  const options: AgencyFieldOption[] = [];
  for (const [field, schema] of Object.entries(agencySchema.shape)) {
    if (field === 'slug' || field === 'accessToken') continue;
    let inner = schema as z.ZodType;
    let required = true;
    for (;;) {
      const def = inner.def as { type: string; innerType?: z.ZodType };
      if ((def.type === 'optional' || def.type === 'default' || def.type === 'nullable') && def.innerType) {
        required = false;
        inner = def.innerType;
      } else break;
    }
    const list = (inner.def as { type: string }).type === 'array';
    options.push({ option: field.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`), field, list, required });
  }
  for (const [alias, field] of Object.entries(OPTION_ALIASES)) {
    const target = options.find((option) => option.field === field);
    if (target) options.push({ ...target, option: alias });
  }
  return options;
}

/** One agency of AGENCIES_FILE, as validated. */
export type AgencyEntry = z.infer<typeof agencySchema>;

/**
 * Reads and checks AGENCIES_FILE. Every problem is named by agency (slug, or its place in the
 * list) and field; an access token's value is never repeated in an error. Throws a ConfigError.
 */
export function readAgenciesFile(path: string): AgencyEntry[] {
  return parseAgencies(readAgenciesJson(path));
}

/** AGENCIES_FILE's JSON as written (for an edit that keeps each entry as it is), its mode and syntax checked; throws a ConfigError. */
export function readAgenciesJson(path: string): unknown {
  const file = resolve(path);
  let text: string;
  try {
    const mode = statSync(file).mode;
    if (mode & PRIVATE_MODE_MASK) {
      throw new ConfigError([
        `AGENCIES_FILE: ${file} may be read or written by others (mode ${(mode & 0o777).toString(8).padStart(3, '0')}); it holds the agencies' access tokens: chmod 600 it`,
      ]);
    }
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError([`AGENCIES_FILE: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`]);
  }
  return parseAgenciesText(text, file);
}

/** The file's text as JSON (a leading byte-order mark, as some editors save, is allowed). Throws a ConfigError naming line and column. */
export function parseAgenciesText(text: string, file: string): unknown {
  const json = text.replace(/^\uFEFF/, '');
  try {
    return JSON.parse(json);
  } catch {
    // The parser's message may quote the text (a token), and differs between Node versions: the place and the fault from our own scanner.
    const fault = findJsonSyntaxError(json);
    throw new ConfigError([
      fault ? `AGENCIES_FILE: ${file}: line ${fault.line}, column ${fault.column}: ${fault.message}` : `AGENCIES_FILE: ${file} is not valid JSON`,
    ]);
  }
}

/** Checks the file's parsed JSON (see readAgenciesFile). */
export function parseAgencies(json: unknown): AgencyEntry[] {
  const top = fileSchema.safeParse(json);
  if (!top.success)
    throw new ConfigError([
      'AGENCIES_FILE: must be a JSON object { "agencies": [ { "slug", "name", "accessToken", "allowedOrigins", "siteUrl" }, … ] } and nothing else',
    ]);
  const problems: string[] = [];
  const agencies: AgencyEntry[] = [];
  top.data.agencies.forEach((raw, index) => {
    const slug = typeof raw === 'object' && raw !== null && typeof (raw as { slug?: unknown }).slug === 'string' ? (raw as { slug: string }).slug : undefined;
    const label = `agencies[${index}]${slug && AGENCY_SLUG.test(slug) ? ` ("${slug}")` : ''}`;
    const parsed = agencySchema.safeParse(raw);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const field = issue.path.length ? issue.path.map(String).join('.') : '(agency)';
        // Zod's messages name what was expected, never the value itself; unknown keys are named by key.
        const message =
          issue.code === 'unrecognized_keys'
            ? `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((key) => `"${key}"`).join(', ')}`
            : issue.message;
        problems.push(`AGENCIES_FILE: ${label}: ${field}: ${message}`);
      }
      return;
    }
    agencies.push(parsed.data);
  });
  if (top.data.agencies.length === 0) problems.push('AGENCIES_FILE: agencies: lists no agency');
  const seenSlugs = new Map<string, number>();
  const seenTokens = new Map<string, string>();
  for (const agency of agencies) {
    if (seenSlugs.has(agency.slug)) problems.push(`AGENCIES_FILE: "${agency.slug}": slug: is used by more than one agency`);
    seenSlugs.set(agency.slug, 1);
    const owner = seenTokens.get(agency.accessToken);
    if (owner !== undefined && owner !== agency.slug)
      problems.push(`AGENCIES_FILE: "${agency.slug}": accessToken: is the same as agency "${owner}"'s (one token is one agency's account)`);
    else seenTokens.set(agency.accessToken, agency.slug);
  }
  if (problems.length) throw new ConfigError(problems);
  return agencies;
}

/** The folder of one agency's store (0700, like DATA_DIR): DATA_DIR/agencies/<slug>. */
export function agencyDataDir(dataDir: string, slug: string): string {
  return join(resolve(dataDir), 'agencies', slug);
}

/**
 * One agency's settings: the relay's, with the agency's token, origins, site and store folder.
 * Its catch-up interval comes from the plan of all agencies together (planAgencies), its sweep is
 * daily and list polls are left to the stream and the sweep, as that plan counts them.
 */
export function agencyConfig(base: Config, agency: AgencyEntry, catchUpIntervalMinutes: number | null): Config {
  return {
    ...base,
    dataDir: agencyDataDir(base.dataDir, agency.slug),
    http: { ...base.http, allowedOrigins: agency.allowedOrigins },
    crm: { ...base.crm, accessToken: agency.accessToken },
    listings: {
      ...base.listings,
      syncIntervalMinutes: catchUpIntervalMinutes ?? 24 * 60,
      listPollMinutes: 24 * 60,
      fullSweepHours: 24,
    },
    site: { ...base.site, url: agency.siteUrl, name: agency.name },
  };
}
