import { readFileSync, statSync } from 'node:fs';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import { domainToASCII } from 'node:url';
import { z } from 'zod';
import { brandColour, ConfigError, countryCode, isTimeZone, officePhone, siteLanguageList, siteLanguageTag, USER_ID, type Config } from '../runtime/config.ts';
import { findJsonSyntaxError } from '../runtime/json-syntax.ts';
import { parseMailFrom, parseSmtpUrl } from '../runtime/mail-settings.ts';

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

/** Host names of one agency: enough for its domains and a listings subdomain or two. */
const MAX_HOSTS = 20;

/**
 * A host name the agency's listing pages are served at (its root paths): a listings subdomain
 * CNAME'd to the relay, or its domain behind a proxy that passes the Host on. Compared with the
 * request's host name, so it is kept in the form browsers send: lower case, punycode, no trailing dot.
 */
const hostName = z.string().transform((value, context) => {
  const refuse = (message: string) => {
    context.addIssue({ code: 'custom', message });
    return z.NEVER;
  };
  if (/[/:@?#\s]/.test(value)) return refuse('must be a host name only, such as listings.agency.example (no scheme, port or path)');
  const ascii = domainToASCII(value.trim().replace(/\.$/, ''));
  if (!ascii) return refuse('must be a host name such as listings.agency.example');
  if (isIP(ascii)) return refuse("must be a host name, not an IP address (an address is not the agency's own name)");
  const labels = ascii.split('.');
  if (labels.length < 2 || ascii.length > 253 || !labels.every((label) => /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(label)))
    return refuse('must be a host name such as listings.agency.example (labels of a-z, 0-9 and -, at least one dot)');
  return ascii;
});

/** A URL's host name as compared with `hosts` (its port aside). */
export function hostOf(url: string): string {
  return new URL(url).hostname.replace(/\.$/, '');
}

/** A CRM user id in teamOrder or teamHidden: a number, or its digits as `agencies set --team-order` passes them. */
const userId = z.union([z.number().int().positive(), z.string().regex(USER_ID).transform(Number)], {
  message: 'each entry must be a CRM user id (a whole number from 1)',
});
const userIds = z.array(userId).transform((ids) => [...new Set(ids)]);

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
  hosts: z.array(hostName).max(MAX_HOSTS, `must list at most ${MAX_HOSTS} host names`).default([]),
  wrapperUrl: z.url({ protocol: /^https?$/, message: "must be an http(s) URL of a page of the agency's site" }).optional(),
  timeZone: z.string().refine(isTimeZone, 'must be an IANA time zone such as Australia/Perth').optional(),
  country: countryCode.optional(),
  language: siteLanguageTag.optional(),
  languages: siteLanguageList.optional(),
  listingPath: z
    .string()
    .regex(/^(\/[A-Za-z0-9._~-]+)+$/, 'must be a path such as /listings (no trailing slash, no query)')
    .optional(),
  // The agency's own mail server and sender (SMTP_URL and MAIL_FROM are the defaults); the URL holds a password, never repeated in an error.
  smtpUrl: z
    .string()
    .superRefine((value, context) => {
      const target = parseSmtpUrl(value);
      if (typeof target === 'string') context.addIssue({ code: 'custom', message: target });
    })
    .optional(),
  mailFrom: z
    .string()
    .superRefine((value, context) => {
      const from = parseMailFrom(value);
      if (typeof from === 'string') context.addIssue({ code: 'custom', message: from });
    })
    .optional(),
  alertConfirmation: z.enum(['email', 'agent'], { message: 'must be email (double opt-in) or agent (an agent confirms)' }).optional(),
  // The agency's people (server/listings/team.ts); TEAM_ORDER, TEAM_HIDDEN and AGENT_DIRECT_CONTACT are the defaults.
  phone: officePhone.optional(),
  // The seller's reports' colour (SITE_BRAND_COLOUR is the default).
  brandColour: brandColour.optional(),
  teamOrder: userIds.optional(),
  teamHidden: userIds.optional(),
  agentDirectContact: z
    .union([z.boolean(), z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1')], {
      message: "must be true (agents' own e-mail and mobile shown) or false",
    })
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
export function readAgenciesFile(path: string, options: AgencyChecks = {}): AgencyEntry[] {
  return parseAgencies(readAgenciesJson(path), options);
}

/** What the file is checked against beyond itself. */
export interface AgencyChecks {
  /** PUBLIC_URL: its host serves every agency under /a/<slug>/, so no agency may claim it in `hosts`. */
  publicUrl?: string;
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
export function parseAgencies(json: unknown, options: AgencyChecks = {}): AgencyEntry[] {
  const top = fileSchema.safeParse(json);
  if (!top.success)
    throw new ConfigError([
      'AGENCIES_FILE: must be a JSON object { "agencies": [ { "slug", "name", "accessToken", "allowedOrigins", "siteUrl", "hosts", "wrapperUrl", "smtpUrl", "mailFrom", "alertConfirmation", "phone", "brandColour", "language", "languages", "teamOrder", "teamHidden", "agentDirectContact", … }, … ] } and nothing else',
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
  problems.push(...hostProblems(agencies, options));
  if (problems.length) throw new ConfigError(problems);
  return agencies;
}

/**
 * A request's Host picks one agency's pages: a host name listed twice (by two agencies, or twice by
 * one) or the relay's own (PUBLIC_URL, where every agency is under /a/<slug>/) is refused.
 */
function hostProblems(agencies: AgencyEntry[], options: AgencyChecks): string[] {
  const problems: string[] = [];
  const relayHost = options.publicUrl ? hostOf(options.publicUrl) : undefined;
  const owners = new Map<string, string>();
  for (const agency of agencies) {
    agency.hosts.forEach((host, index) => {
      const field = `AGENCIES_FILE: "${agency.slug}": hosts.${index}`;
      const owner = owners.get(host);
      if (host === relayHost)
        problems.push(`${field}: "${host}" is the relay's own host (PUBLIC_URL), which serves every agency under /a/<slug>/: list the agency's own names only`);
      else if (owner === agency.slug) problems.push(`${field}: "${host}" is listed twice`);
      else if (owner !== undefined) problems.push(`${field}: "${host}" is also agency "${owner}"'s (a host name serves one agency's pages)`);
      else owners.set(host, agency.slug);
    });
  }
  return problems;
}

/** The folder of one agency's store (0700, like DATA_DIR): DATA_DIR/agencies/<slug>. */
export function agencyDataDir(dataDir: string, slug: string): string {
  return join(resolve(dataDir), 'agencies', slug);
}

/**
 * One agency's settings: the relay's, with the agency's token, origins, site (URL, name, wrapper,
 * time zone, listing path) and store folder.
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
    site: {
      ...base.site,
      url: agency.siteUrl,
      name: agency.name,
      wrapperUrl: agency.wrapperUrl,
      // SITE_TIME_ZONE and SITE_LISTING_PATH are the defaults of agencies that name none.
      timeZone: agency.timeZone ?? base.site.timeZone,
      // SITE_COUNTRY likewise: where the geocoder looks for the agency's listings whose records name no country.
      country: agency.country ?? base.site.country,
      // SITE_LANGUAGE likewise: the language of the agency's pages.
      language: agency.language ?? base.site.language,
      otherLanguages: (agency.languages ?? base.site.otherLanguages).filter((code) => code !== (agency.language ?? base.site.language)),
      listingPath: agency.listingPath ?? base.site.listingPath,
      phone: agency.phone,
      brandColour: agency.brandColour ?? base.site.brandColour,
    },
    team: {
      order: agency.teamOrder ?? base.team.order,
      hidden: agency.teamHidden ?? base.team.hidden,
      directContact: agency.agentDirectContact ?? base.team.directContact,
    },
    ...agencyMailSettings(base, agency),
  };
}

/** An agency's mail and confirmation: its own `smtpUrl`, `mailFrom` and `alertConfirmation`, else SMTP_URL, MAIL_FROM and SAVED_SEARCH_CONFIRMATION. */
export function agencyMailSettings<Base extends Pick<Config, 'mail' | 'savedSearches'>>(
  base: Base,
  agency: Pick<AgencyEntry, 'smtpUrl' | 'mailFrom' | 'alertConfirmation'>,
): Pick<Base, 'mail' | 'savedSearches'> {
  const smtpUrl = agency.smtpUrl ?? base.mail.smtpUrl;
  const from = agency.mailFrom ?? base.mail.from;
  return {
    mail: { ...(smtpUrl !== undefined ? { smtpUrl } : {}), ...(from !== undefined ? { from } : {}) },
    savedSearches: { ...base.savedSearches, confirmation: agency.alertConfirmation ?? base.savedSearches.confirmation },
  };
}
