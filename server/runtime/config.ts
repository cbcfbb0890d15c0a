import { isIP } from 'node:net';
import { z } from 'zod';
import { parseMailFrom, parseSmtpUrl } from './mail-settings.ts';
import { BUILT_IN_LANGUAGES, ENGLISH_LANGUAGES, siteLanguage } from '../../contract/languages.ts';

/** Comma-separated list → trimmed, non-empty entries. */
const csv = z.string().transform((value) =>
  value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean),
);

/** A country as ISO 3166-1 alpha-2 ("AU"), upper case (SITE_COUNTRY, an agency's `country` in AGENCIES_FILE). */
/** A language a site's pages are in (SITE_LANGUAGE, an agency's `language`): an English one or one the widget has words for. */
export const siteLanguageTag = z.string().transform((value, context) => {
  const code = siteLanguage(value);
  if (!code) {
    context.addIssue({ code: 'custom', message: `must be one of ${[...ENGLISH_LANGUAGES, ...BUILT_IN_LANGUAGES].join(', ')} (got "${value.slice(0, 40)}")` });
    return z.NEVER;
  }
  return code;
});

/** Languages a site also offers its pages in (SITE_LANGUAGES): each as siteLanguageTag takes it, none twice. */
export const siteLanguageList = z.union([z.string(), z.array(z.string())]).transform((value, context) => {
  const entries = (Array.isArray(value) ? value : value.split(',')).map((part) => part.trim()).filter(Boolean);
  const codes = entries.map((entry) => siteLanguage(entry));
  const bad = entries.filter((_, index) => !codes[index]);
  if (bad.length) {
    context.addIssue({
      code: 'custom',
      message: `must be languages from ${[...ENGLISH_LANGUAGES, ...BUILT_IN_LANGUAGES].join(', ')}, separated by commas (not understood: ${bad.map((entry) => `"${entry.slice(0, 40)}"`).join(', ')})`,
    });
    return z.NEVER;
  }
  return [...new Set(codes as string[])];
});

export const countryCode = z
  .string()
  .trim()
  .regex(/^[A-Za-z]{2}$/, 'must be a two-letter ISO 3166-1 country code such as AU or NZ')
  .transform((value) => value.toUpperCase());
const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** A CRM user id as written in a setting: a whole number from 1 (TEAM_ORDER, TEAM_HIDDEN; teamOrder, teamHidden in AGENCIES_FILE). */
export const USER_ID = /^[1-9]\d{0,14}$/;

/** Comma-separated CRM user ids (TEAM_ORDER, TEAM_HIDDEN): whole numbers from 1, in the order given, each once. */
export const userIdList = z.string().transform((value, context) => {
  const entries = value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  const bad = entries.filter((entry) => !USER_ID.test(entry));
  if (bad.length) {
    context.addIssue({
      code: 'custom',
      message: `must be CRM user ids (whole numbers from 1) separated by commas, such as 1042,1017 (not understood: ${bad.map((entry) => `"${entry}"`).join(', ')})`,
    });
    return z.NEVER;
  }
  return [...new Set(entries.map(Number))];
});

/** An agency's colour (SITE_BRAND_COLOUR, an agency's `brandColour`): #rrggbb, as a style sheet takes it whole. */
export const brandColour = z
  .string()
  .trim()
  .regex(/^#[0-9a-fA-F]{6}$/, 'must be a colour written #rrggbb, such as #1f4e79');

/** The office's phone number as the agency writes it (SITE_PHONE, an agency's `phone`): digits, spaces and the usual marks. */
export const officePhone = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(40, 'must be at most 40 characters')
  .regex(/^\+?(?=[^\d]*\d)[\d ()./-]+$/, 'must be a phone number such as (03) 9555 0100 or +61 3 9555 0100');

/**
 * The relay's whole configuration, read once from the environment. Variable names are a public
 * contract: deployments depend on them. Every entry has a description: the configuration
 * table is generated from this schema.
 */
/** LEAD_QUARANTINE_DAYS unset: two weeks, long enough for an operator's weekly look, short enough to keep little. */
export const DEFAULT_LEAD_QUARANTINE_DAYS = 14;

export const configSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8787).describe('TCP port the relay listens on.'),
  HOST: z.string().min(1).default('0.0.0.0').describe('Interface the relay binds to.'),
  DATA_DIR: z.string().min(1).default('./data').describe('Folder for the SQLite store and the photo mirror.'),
  DATABASE_URL: z
    .string()
    .superRefine(checkDatabaseUrl)
    .optional()
    .describe(
      'postgres://user:password@host:5432/db: keep the shared state in PostgreSQL, so two or more relays can serve one agency (so far the enquiry outbox, a schema per agency, and the per-second and daily CRM limits with the registry of relays; the rest stays in DATA_DIR). Unset: everything in the SQLite store in DATA_DIR. Secret (holds the password).',
    ),
  CRM_BASE_URL: z
    .url()
    .refine((value) => /\/api\/v1\.3\/?$/.test(value), 'must end in /api/v1.3')
    .optional()
    .describe('Base URL of the CRM API, ending in /api/v1.3. Required with CRM_API_KEY and CRM_ACCESS_TOKEN outside demo mode.'),
  CRM_API_KEY: z.string().min(1).optional().describe('The integrator API key (X-Api-Key). Secret.'),
  CRM_ACCESS_TOKEN: z
    .string()
    .min(1)
    .optional()
    .describe("The agency account's access token (Bearer). Secret. Not with AGENCIES_FILE (each agency's token is in the file)."),
  AGENCIES_FILE: z
    .string()
    .min(1)
    .optional()
    .describe(
      'JSON file of the agencies this relay serves on one API key (`{ "agencies": [ { "slug", "name", "accessToken", "allowedOrigins", "siteUrl", "hosts", "wrapperUrl", "timeZone", "country", "listingPath", "phone", "teamOrder", "teamHidden", "agentDirectContact" } ] }`, see docs/agencies.md), each under /a/<slug>/ and its listing pages also at the root paths of its `hosts`. Must be readable by its owner only (chmod 600): it holds the tokens. Re-read on SIGHUP and `npm run relay -- agencies reload`. Unset: one agency (CRM_ACCESS_TOKEN) at the root paths.',
    ),
  CRM_REQUESTS_PER_SECOND: positiveInt(10).describe('Upstream request rate limit per API key.'),
  CRM_DAILY_LIMIT: positiveInt(10_000).describe('Upstream requests per UTC day per API key.'),
  CRM_TIMEOUT_MS: positiveInt(15_000).describe('Timeout of one upstream request, in milliseconds.'),
  CRM_USAGE_CHECK_MINUTES: positiveInt(60).describe(
    "Minutes between reads of the CRM's GET /integrator/usage (one request each), so the day's budget counts what other tools spend with the same API key.",
  ),
  ALLOWED_ORIGINS: csv
    .pipe(z.array(z.url({ message: 'each entry must be an origin such as https://agency.example' })))
    .default([])
    .describe('Comma-separated origins of the agency sites allowed to call the relay API.'),
  NODE_ENV: z.string().optional().describe('`production` never falls back to demo mode: missing CRM settings are then an error.'),
  DEMO_MODE: z
    .enum(['0', '1'])
    .optional()
    .describe(
      '1: run the demo (embedded CRM simulator and demo site) whatever NODE_ENV says; 0: never. Unset: demo mode only when no CRM_* variable is set and NODE_ENV is not production.',
    ),
  PUBLIC_URL: z
    .url({ protocol: /^https?$/, message: 'must be an http(s) URL such as https://relay.agency.example' })
    .refine((value) => !/[?#]/.test(value), 'must not have a query or fragment')
    .transform((value) => value.replace(/\/+$/, ''))
    .optional()
    .describe(
      "URL at which browsers reach the relay. Required outside demo mode: photo URLs, the printed script tags and the relay's own origin (CORS) come from it, never from a request's Host header.",
    ),
  TRUST_PROXY: z
    .string()
    .default('false')
    .transform(parseTrustProxy)
    .describe(
      'Proxies whose X-Forwarded-For is believed (and X-Forwarded-Host, its last value only, the one the proxy next to the relay wrote: with AGENCIES_FILE it picks the agency whose `hosts` serve their pages): false, a hop count (1 = one proxy in front), or comma-separated subnets/addresses (loopback, linklocal, uniquelocal, 10.0.0.0/8, ...). `true` is refused: any client could then pick its own address.',
    ),
  METRICS_TOKEN: z
    .string()
    .min(32, 'must be at least 32 characters')
    .optional()
    .describe(
      'Bearer token for GET /metrics (Authorization: Bearer …). Unset: /metrics answers only direct, unproxied requests from this host (loopback). Secret.',
    ),
  ANSWER_CACHE_MB: positiveInt(64).describe(
    'Megabytes of rendered answers (listing API answers with their compressed forms, server-rendered pages) kept in memory for all agencies together; the least recently used go first.',
  ),
  UNCACHED_RENDERS_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(0)
    .default(120)
    .describe(
      "Answers one client (IP address, an IPv6 /64; see TRUST_PROXY) may have rendered a minute that are not in the answer cache; past it, 429 with Retry-After. Cached answers are never limited. With AGENCIES_FILE each agency's listing pages count apart (a crawler of one agency's site never uses up another's). 0 turns the limit off.",
    ),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .optional()
    .describe('Log level. Unset: `info`, except in the human log on a terminal (LOG_FORMAT), which shows warnings and errors only.'),
  LOG_FORMAT: z
    .enum(['json', 'pretty'])
    .optional()
    .describe(
      'How log lines are written: `json`, one JSON object a line (for a log collector or `jq`); `pretty`, one short human line each. Unset: `pretty` when the relay writes to a terminal, else `json`.',
    ),
  SIM_LISTINGS: positiveInt(40).describe('Demo mode: number of listings the embedded simulator seeds.'),
  ENQUIRY_RATE_LIMIT_PER_MINUTE: positiveInt(5).describe(
    'Enquiries one client (IP address) may send per minute; more get 429 with Retry-After. Repeats of an accepted originalId do not count.',
  ),
  ENQUIRY_DAILY_LIMIT_PER_CLIENT: positiveInt(30).describe(
    'Enquiries one client (IP address, keyed as the per-minute limit) may send per UTC day; more get 429 with Retry-After until 00:00 UTC. Repeats of an accepted originalId do not count.',
  ),
  ENQUIRY_DAILY_BUDGET: positiveInt(1000).describe(
    'Enquiries the relay accepts for delivery per UTC day from all clients together (each spends CRM quota); more get 429 with Retry-After until 00:00 UTC. Spam and repeats do not count.',
  ),
  ENQUIRY_SOURCE: z
    .string()
    .min(1)
    .default('OFFICEWEBSITE')
    .describe("The CRM holding-area `source` of forwarded enquiries ('OFFICEWEBSITE' for an agency's own site)."),
  ENQUIRY_SELLER_CATEGORIES: csv
    .pipe(
      z.array(
        z
          .string()
          .regex(/^[1-9]\d{0,15}$/, 'each entry must be a CRM category id (a positive whole number)')
          .transform(Number),
      ),
    )
    .default([])
    .describe(
      'Comma-separated CRM category ids an appraisal request (a seller\'s lead) is filed under in the holding area, e.g. the agency\'s "Appraisal request" or "Vendor" category (GET /categories/contact lists them). Unset: none.',
    ),
  ENQUIRY_MAX_AGE_HOURS: z.coerce.number().positive().default(72).describe('Hours an enquiry is retried (CRM 429, 5xx, timeouts) before it is dead-lettered.'),
  ENQUIRY_ERASE_AFTER_DAYS: z.coerce
    .number()
    .min(0)
    .default(7)
    .describe("Days after delivery when an enquiry's personal data is erased from the relay's outbox."),
  ENQUIRY_DEAD_ERASE_AFTER_DAYS: z.coerce
    .number()
    .min(0)
    .default(30)
    .describe('Days after an enquiry is dead-lettered when its personal data is erased (it can no longer be retried then).'),
  ENQUIRY_MIN_FILL_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(3000)
    .describe(
      'A lead (an enquiry, a saved search) sent sooner than this after the visitor could first have started (elapsedMs: from the first element on the page or the first interaction, not from the form opening; docs/api.md) may be a bot, or a person whose browser filled the form in: it is delivered as usual, marked for the agent in its metaData (spamSignal), and counted. 0 turns the check off.',
    ),
  LEAD_QUARANTINE_DAYS: z.coerce
    .number()
    .min(0)
    .default(DEFAULT_LEAD_QUARANTINE_DAYS)
    .describe(
      'Days a lead whose hidden honeypot field was filled in is kept whole in the quarantine (enquiries and saved searches), sent nowhere, for the operator to list and release (`npm run relay -- outbox quarantine`, `outbox release <originalId>`); then its personal data is erased.',
    ),
  ENQUIRY_RETRY_BASE_MS: positiveInt(1_000).describe(
    "First retry delay of a lead (an enquiry, a saved search's step) in ms after the CRM failed it; doubles with each failure in a row, with jitter (half to all of it), up to ENQUIRY_RETRY_MAX_MS; never sooner than a 429's Retry-After. Also the first cooldown of the delivery circuit breaker.",
  ),
  ENQUIRY_RETRY_MAX_MS: positiveInt(5 * 60_000).describe("Longest delay between two delivery attempts of one lead, in ms: the back-off's cap."),
  ENQUIRY_RECONCILE_DELAY_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(30_000)
    .describe(
      'After a write with an unknown outcome that may still land (a timeout, a cut connection, a 502/504, a write left by a killed process), how long (ms) a look-up that does not find it is not believed: the lead is written again only once a look-up this long after the failure finds nothing, so a slow request can land first.',
    ),
  ENQUIRY_EARLY_LOOKUP_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(2_000)
    .describe(
      'After a write with an unknown outcome, look the lead up in the CRM this soon (ms): found (a dropped answer to a write the CRM made), it is done; not found, it is looked up again ENQUIRY_RECONCILE_DELAY_MS after the failure before it is written again. At most ENQUIRY_RECONCILE_DELAY_MS (unset: the smaller of the two).',
    ),
  ENQUIRY_DELIVERY_CONCURRENCY: positiveInt(8).describe(
    "Leads worked at the same time per relay, in each queue (the enquiries, the saved searches), oldest first. The CRM key's rate limit (10 a second, shared with the sync) is the bound; the slots only keep a slow answer or a Retry-After wait from idling the key.",
  ),
  ENQUIRY_POLL_MS: positiveInt(2000).describe('How often (ms) the delivery worker looks for work queued by other processes (the outbox CLI).'),
  ENQUIRY_CLAIM_LEASE_MS: positiveInt(2 * 60_000).describe(
    'With DATABASE_URL: how long (ms) a relay holds the enquiries it is delivering before another relay may take them over (renewed while it works); the takeover time after a relay dies.',
  ),
  SAVED_SEARCH_DAILY_BUDGET: positiveInt(300).describe(
    'Saved searches ("Get alerts for this search") the relay accepts for the CRM per UTC day from all clients together (each spends 2-6 CRM requests); more get 429 with Retry-After until 00:00 UTC. Spam and repeats do not count. Per client they share the enquiry limits (ENQUIRY_RATE_LIMIT_PER_MINUTE, ENQUIRY_DAILY_LIMIT_PER_CLIENT, ENQUIRY_MIN_FILL_MS, counted apart).',
  ),
  SAVED_SEARCH_CATEGORY_IDS: csv
    .pipe(
      z.array(
        z
          .string()
          .regex(/^\d{1,15}$/, 'must be CRM contact category ids (whole numbers), comma-separated')
          .transform(Number),
      ),
    )
    .default([])
    .describe(
      "The CRM contact category ids a saved search's contact is put in (the agency's web-alert lists; GET /categories/contact lists them), comma-separated. Unset: none (the contact and its requirement only).",
    ),
  SAVED_SEARCH_HOLDING_ENQUIRY: z
    .enum(['0', '1'])
    .default('1')
    .describe(
      '1: each new saved search also leaves an enquiry in the CRM holding area (source ENQUIRY_SOURCE; subject "New alert subscriber: <name>, <the search>"), so an agent sees every new subscriber the day they subscribe. 0: the contact and its requirement only (a new subscriber shows in the CRM only where an agent looks for contacts or matches a listing).',
    ),
  SAVED_SEARCH_CONFIRMATION: z
    .enum(['email', 'agent'])
    .default('email')
    .describe(
      "How a new saved search is confirmed before anything reaches the CRM. `email`: double opt-in, the visitor gets an e-mail with a link (needs SMTP_URL and MAIL_FROM, or the agency's own; without them alerts are not offered). `agent`: the contact is created unsubscribed and an agent confirms it from a holding-area enquiry. With AGENCIES_FILE: the default of every agency without its own `alertConfirmation`.",
    ),
  SAVED_SEARCH_CONFIRM_DAYS: z.coerce
    .number()
    .int()
    .min(1)
    .max(30)
    .default(7)
    .describe('Days the confirmation link of a saved search works (1-30); a saved search not confirmed by then is erased.'),
  VISIT_BUFFER_EVENTS: z.coerce
    .number({ error: 'must be a whole number of events' })
    .int('must be a whole number of events')
    .min(100, 'must be at least 100 events')
    .max(1_000_000, 'must be at most 1000000 events (the buffer is held in memory)')
    .default(10_000)
    .describe(
      "Listing events (views, cards shown, photos opened, …: server/visits/) the relay holds in memory per agency between two writes to the store. Past it, events are dropped and counted as dropped (the seller's report says so) rather than slow a page or grow.",
    ),
  VISIT_FLUSH_MS: z.coerce
    .number({ error: 'must be a whole number of milliseconds' })
    .int('must be a whole number of milliseconds')
    .min(100, 'must be at least 100 ms')
    .max(60_000, 'must be at most 60000 ms (events wait in memory until then)')
    .default(2000)
    .describe('How often (ms) the listing events held in memory are written to the store, as one upsert per listing, day, kind and source.'),
  VISIT_BEACONS_PER_MINUTE: z.coerce
    .number({ error: 'must be a whole number of beacons' })
    .int('must be a whole number of beacons')
    .min(0, 'must be 0 (no limit) or more')
    .max(100_000, 'must be at most 100000 beacons')
    .default(120)
    .describe(
      "Beacons (batches of listing events) one client address may send a minute, per agency; past it they are answered 429 and their events counted as limited, so one script cannot inflate a listing's views. A browser sends a few a minute; 0 turns the limit off.",
    ),
  VISIT_RETENTION_DAYS: z.coerce
    .number({ error: 'must be a whole number of days' })
    .int('must be a whole number of days')
    .min(1, 'must be at least 1 day')
    .max(3660, 'must be at most 3660 days')
    .default(400)
    .describe(
      "Days the per-listing daily counts are kept (docs/visits.md); older days are deleted. The default keeps a year and a month: a campaign's report and last year's beside it.",
    ),
  SMTP_URL: z
    .string()
    .superRefine(checkSmtpUrl)
    .optional()
    .describe(
      "The SMTP server the relay sends its e-mail through (the saved searches' confirmation): smtps://user:password@mail.example:465 (TLS from the start) or smtp://user:password@mail.example:587 (STARTTLS when offered). Secret (holds the password): logged and shown only as scheme, host and port. With AGENCIES_FILE: the default of every agency without its own `smtpUrl`. Unset: no e-mail (demo mode: the embedded simulator's mail catcher).",
    ),
  MAIL_FROM: z
    .string()
    .superRefine(checkMailFrom)
    .optional()
    .describe(
      'The From of the e-mail the relay sends: "Agency alerts <alerts@agency.example>" or a bare alerts@agency.example (then the agency\'s name is shown as the sender). Mail is sent only when both SMTP_URL and MAIL_FROM are set. With AGENCIES_FILE: the default of every agency without its own `mailFrom`.',
    ),
  SYNC_LEASE_MS: positiveInt(15_000).describe(
    "With DATABASE_URL: how long (ms) a relay holds an agency's sync without renewing it (renewed every third of it); another relay takes the sync over this long after its holder dies.",
  ),
  REPLICA_MAX_LAG_SECONDS: positiveInt(120).describe(
    "With DATABASE_URL: a relay copying an agency's listings from the relay that syncs them answers /readyz not ready (503) once its copy is this many seconds behind what that relay published, while PostgreSQL answers it (an outage that stops every copy leaves the relays serving what they hold). A healthy copy is at most about 30 s behind when nothing is published (the poll).",
  ),
  SYNC_INTERVAL_MINUTES: z.coerce
    .number()
    .positive()
    .default(5)
    .describe(
      "Minutes between reads of the CRM's event stream (one request each), which refresh the listings webhooks missed: the catch-up promised when a webhook is lost.",
    ),
  LIST_POLL_MINUTES: z.coerce
    .number()
    .positive()
    .default(60)
    .describe('Minutes between modifiedSince reads of every listing list, the net under the event stream.'),
  FULL_SWEEP_HOURS: positiveInt(6).describe('Hours between full listing sweeps; a listing that leaves the CRM available list disappears within one sweep.'),
  LISTING_CLASSES: csv
    .pipe(z.array(z.enum(['residential', 'commercial', 'land', 'rural'])).min(1))
    .default(['residential'])
    .describe('Comma-separated property classes to sync: residential, commercial, land, rural.'),
  SOLD_DAYS: z.coerce.number().int().min(0).max(3650).default(90).describe('Days of sold and leased residential listings kept for a showcase; 0 turns it off.'),
  WEBHOOK_TOLERANCE_SECONDS: positiveInt(300).describe(
    'Largest accepted age (or clock skew) of a CRM webhook signature timestamp (X-VaultRE-Signature t=); replays are refused by digest within it.',
  ),
  WEBHOOK_DAILY_REFRESHES: z.coerce
    .number()
    .int()
    .min(0)
    .default(200)
    .describe('Most CRM requests webhook notices may trigger per UTC day; past it, changes wait for the next event-stream read.'),
  PHOTO_HOSTS: csv
    .pipe(z.array(z.string().regex(/^[a-z0-9.-]+(:\d+)?$/i, 'each entry must be a host name, with an optional :port')))
    .optional()
    .describe('Comma-separated hosts photos may be downloaded from. Default: the host of CRM_BASE_URL (and the demo simulator).'),
  PHOTO_WIDTHS: csv
    .pipe(z.array(z.string().regex(/^\d+$/, 'each entry must be a whole number of pixels').transform(Number).pipe(z.number().int().min(64).max(4096))).min(1))
    .default([480, 960, 1600])
    .describe('Comma-separated widths (pixels) of the WebP and JPEG variants made of each photo.'),
  PHOTO_MAX_BYTES: positiveInt(15_000_000).describe('Largest photo file the mirror downloads, in bytes.'),
  GEOCODER_URL: z
    .url({ protocol: /^https?$/, message: "must be an http(s) URL of a service speaking Nominatim's /search API, such as https://nominatim.openstreetmap.org" })
    .transform((value) => value.replace(/\/+$/, ''))
    .optional()
    .describe(
      "Base URL of a geocoder speaking Nominatim's `/search` API (the public https://nominatim.openstreetmap.org, a self-hosted Nominatim or a commercial one): places listings the CRM gives no coordinates for. Unset: only listings with CRM coordinates are on the map (demo mode: the simulator answers).",
    ),
  GEOCODER_EMAIL: z
    .email()
    .optional()
    .describe("A contact address for the geocoder's operators, sent in the User-Agent and as `email=` (the public Nominatim's usage policy asks for one)."),
  GEOCODER_REQUESTS_PER_SECOND: z.coerce
    .number()
    .positive()
    .max(100)
    .default(1)
    .describe(
      "Most geocoder requests a second, for this relay, or with DATABASE_URL for all relays on the database together (the public Nominatim allows 1 for the whole application). Not counted against the CRM's budget.",
    ),
  GEOCODER_TIMEOUT_MS: positiveInt(10_000).describe('Timeout of one geocoder request, in milliseconds.'),
  MAP_TILE_URL: z
    .string()
    .superRefine(checkTileTemplate)
    .optional()
    .describe(
      "Where the relay fetches map tiles, a template such as https://tiles.example/{z}/{x}/{y}.png (all of {z}, {x} and {y}; http or https). With {r} (Leaflet's convention, e.g. https://tiles.example/{z}/{x}/{y}{r}.png) the provider also has 512 px tiles at @2x, which the relay serves to high-density screens; without it, 256 px tiles only. Browsers get them from the relay (GET /tiles/{z}/{x}/{y}.png), cached in DATA_DIR/tiles: never from the provider. Choose a provider whose terms allow a caching relay. Unset: the map has no tiles (a plain background) (demo mode: the simulator draws plain tiles).",
    ),
  MAP_LABEL_TILE_URL: z
    .string()
    .superRefine(checkTileTemplate)
    .optional()
    .describe(
      "A labels-only tile layer (place names on transparent tiles: CARTO's light_only_labels, Stadia's stamen_toner_labels, an Esri reference layer) that maps draw above their price pins, so a pin never hides a suburb's name; the same template rules as MAP_TILE_URL, {r} included. Point MAP_TILE_URL at the same provider's base without labels (CARTO's light_nolabels). Served from the relay at /tiles/labels/{z}/{x}/{y}.png under the same area and zoom rules, cached in DATA_DIR/label-tiles (a quarter of MAP_TILE_CACHE_MB; the base tiles keep the rest), each layer at most MAP_TILE_RATE_PER_MINUTE tiles a client. Requires MAP_TILE_URL. Unset: the base tiles carry their own names (demo mode: the simulator's labels layer).",
    ),
  MAP_ATTRIBUTION: z
    .string()
    .trim()
    .min(1)
    .max(300)
    .optional()
    .describe('The tile provider\'s attribution, always shown on the map (e.g. "© OpenStreetMap contributors"). Required with MAP_TILE_URL.'),
  MAP_TILE_CACHE_MB: positiveInt(256).describe(
    "Megabytes of disk the map tiles in DATA_DIR/tiles (and the labels layer's in DATA_DIR/label-tiles, a quarter of it, with MAP_LABEL_TILE_URL) may take, for every agency together, counted as `du` counts it (each file's and folder's blocks); the least recently used go first. Nothing more is cached while the disk has less than 1 GiB (or a tenth of it) or 5 % of its inodes free.",
  ),
  MAP_MAX_ZOOM: z.coerce.number().int().min(0).max(22).default(17).describe('Deepest zoom level of the tiles the relay serves (deeper ones: 404).'),
  MAP_TILE_RATE_PER_MINUTE: positiveInt(600).describe(
    'Map tiles one client (IP address, an IPv6 /64; see TRUST_PROXY) may ask the relay for a minute, cached or not; past it, 429 with Retry-After.',
  ),
  CRM_BUDGET_SHARE: z.coerce
    .number()
    .gt(0)
    .max(1)
    .default(0.5)
    .describe('Largest share of CRM_DAILY_LIMIT the listing sync may plan to use; the relay refuses to start above it.'),
  SITE_URL: z
    .url({ protocol: /^https?$/, message: "must be an http(s) URL such as https://agency.example (the agency's own site)" })
    .refine((value) => !/[?#]/.test(value), 'must not have a query or fragment')
    .transform((value) => value.replace(/\/+$/, ''))
    .optional()
    .describe(
      "The agency's own site, where its reverse proxy serves the relay's listing pages: canonical URLs and sitemaps name it. Unset: PUBLIC_URL (demo mode: the relay's own address). Not with AGENCIES_FILE (each agency's `siteUrl`).",
    ),
  SITE_LISTING_PATH: z
    .string()
    .regex(/^(\/[A-Za-z0-9._~-]+)+$/, 'must be a path such as /listings (no trailing slash, no query)')
    .default('/listings')
    .describe(
      "Where the agency's site maps the relay's /listings/ pages (e.g. /property): canonical URLs, sitemaps and page links use it. With AGENCIES_FILE: the default of every agency without its own `listingPath`.",
    ),
  SITE_WRAPPER_URL: z
    .url({ protocol: /^https?$/, message: 'must be an http(s) URL of a page of the agency site' })
    .optional()
    .describe(
      "A page of the agency site holding `<!-- estate-embed -->` where listing pages go: fetched, cached and used as their shell (header, footer, styles). Unset: a plain shell (demo mode: the demo site's page). Not with AGENCIES_FILE (each agency's `wrapperUrl`).",
    ),
  SITE_WRAPPER_MINUTES: positiveInt(15).describe(
    "Minutes a fetched SITE_WRAPPER_URL page (with AGENCIES_FILE: each agency's `wrapperUrl`) is used before it is fetched again (the last good copy serves while the site is down).",
  ),
  SITE_TIME_ZONE: z
    .string()
    .refine(isTimeZone, 'must be an IANA time zone such as Australia/Sydney')
    .default('Australia/Sydney')
    .describe(
      'Time zone of open home and auction times on server-rendered pages (the same for every visitor, and for the browser that takes the page over). With AGENCIES_FILE: the default of every agency without its own `timeZone`.',
    ),
  SITE_LANGUAGE: siteLanguageTag
    .default('en-AU')
    .describe(
      'The language of the relay\'s listing, team and agent pages (their words, `<html lang>`, and `dir="rtl"` for Arabic) and of the e-mails they lead to: en-AU, en-NZ, en-GB or a language the widget speaks (docs/languages.md). Listings\' own text stays as the CRM has it. With AGENCIES_FILE: the default of every agency without its own `language`.',
    ),
  SITE_LANGUAGES: siteLanguageList
    .default([])
    .describe(
      'Other languages the relay\'s pages are offered in, comma-separated ("zh-Hans,vi"): each page is also at `?lang=<code>` with its words in that language, every version names the others (hreflang), and a language switcher links them. Unset: SITE_LANGUAGE only. With AGENCIES_FILE: the default of every agency without its own `languages`.',
    ),
  SITE_COUNTRY: countryCode
    .default('AU')
    .describe(
      "The agency's country (ISO 3166-1 alpha-2, such as AU or NZ): the geocoder is asked within it for listings whose CRM record names no country, and an answer outside it is taken as not found (docs/map.md). With AGENCIES_FILE: the default of every agency without its own `country`.",
    ),
  SITE_NAME: z
    .string()
    .trim()
    .min(1)
    .max(120)
    .optional()
    .describe(
      "The agency's name, for page titles, Open Graph and schema.org. Unset: none (demo mode: the demo agency's). Not with AGENCIES_FILE (each agency's `name`).",
    ),
  SITE_BRAND_COLOUR: brandColour
    .optional()
    .describe(
      "The agency's colour as #rrggbb (\"#1f4e79\"): the band and charts of the seller's reports (docs/seller-report.md), darkened where white text on it would not meet WCAG AA. Unset: a dark blue (demo mode: the demo site's teal). With AGENCIES_FILE: the default of every agency without its own `brandColour`.",
    ),
  SITE_PHONE: officePhone
    .optional()
    .describe(
      "The office's phone number as the agency writes it (\"(03) 9555 0100\"): on the team page, in schema.org, and on a listing's card when its agents have all left. Unset: none (demo mode: the demo agency's). Not with AGENCIES_FILE (each agency's `phone`).",
    ),
  TEAM_ORDER: userIdList
    .default([])
    .describe(
      "Comma-separated CRM user ids of the agency's people shown first on the team page and `GET /api/v1/team`, in this order; the rest follow by name. With AGENCIES_FILE: the default of every agency without its own `teamOrder`.",
    ),
  TEAM_HIDDEN: userIdList
    .default([])
    .describe(
      'Comma-separated CRM user ids never shown, even when the CRM shows them on the web: no team card, no agent page (404), never named on a listing (its card names the office when it names no one else). With AGENCIES_FILE: the default of every agency without its own `teamHidden`.',
    ),
  AGENT_DIRECT_CONTACT: z
    .enum(['0', '1'])
    .default('0')
    .describe(
      "1: agents' own e-mail addresses and mobiles are shown (on their cards, pages, the API and schema.org; a mobile the agent hides from portals never is). 0: an agent's e-mail is never shown and their phone is their office line, else the office's (SITE_PHONE), as for staff who give only a mobile. With AGENCIES_FILE: the default of every agency without its own `agentDirectContact`.",
    ),
});

/** The environment as parsed: one flat entry per variable (the public contract, and docs/configuration.md's table). */
export type EnvSettings = z.infer<typeof configSchema>;

/** The listener and what browsers see of the relay. */
export interface HttpSettings {
  port: number;
  host: string;
  /** Without a trailing slash; required outside demo mode. */
  publicUrl: string | undefined;
  trustProxy: EnvSettings['TRUST_PROXY'];
  allowedOrigins: string[];
  metricsToken: string | undefined;
  /** The answer cache's bound (server/http/answer-cache.ts), in bytes. */
  answerCacheBytes: number;
  /** Renders a minute per client not answered from that cache; 0: no limit. */
  uncachedRendersPerMinute: number;
}

/** The CRM account and what this relay may spend of its API key. */
export interface CrmSettings {
  baseUrl: string | undefined;
  apiKey: string | undefined;
  accessToken: string | undefined;
  requestsPerSecond: number;
  dailyLimit: number;
  timeoutMs: number;
  usageCheckMinutes: number;
  /** Largest share of dailyLimit the listing sync may plan to use. */
  budgetShare: number;
}

/** What the listing sync reads, and how often. */
export interface ListingSettings {
  syncIntervalMinutes: number;
  listPollMinutes: number;
  /** DATABASE_URL: how long an agency's sync lease holds without renewal. */
  syncLeaseMs: number;
  /** DATABASE_URL: how far (s) a relay's copy of the agency's synced tables may be behind before /readyz says not ready. */
  replicaMaxLagSeconds: number;
  fullSweepHours: number;
  classes: Array<'residential' | 'commercial' | 'land' | 'rural'>;
  soldDays: number;
  webhookToleranceSeconds: number;
  webhookDailyRefreshes: number;
}

export interface PhotoSettings {
  /** undefined: the CRM's host (and the demo simulator's). */
  hosts: string[] | undefined;
  widths: number[];
  maxBytes: number;
}

/** The geocoder that places listings without CRM coordinates (server/places/). */
export interface PlacesSettings {
  /** Without a trailing slash; undefined: no geocoding. */
  geocoderUrl: string | undefined;
  email: string | undefined;
  requestsPerSecond: number;
  timeoutMs: number;
}

/** Map tiles the relay fetches, caches and serves (server/tiles/). */
export interface TileSettings {
  /** The provider's `{z}/{x}/{y}` template; undefined: no tiles. */
  url: string | undefined;
  /** A labels-only layer's template (MAP_LABEL_TILE_URL), drawn above the map's markers; undefined: none (the base carries its names). */
  labelUrl: string | undefined;
  attribution: string | undefined;
  cacheBytes: number;
  maxZoom: number;
  ratePerMinute: number;
}

/** How enquiries are delivered, durations in ms: what the delivery worker (enquiries/worker.ts) reads from the environment. */
export interface EnquiryDeliveryConfig {
  /** The lead's source in the sink (ENQUIRY_SOURCE): read by the composition root when it makes the sink. */
  source: string;
  /** Category ids of a seller's lead (ENQUIRY_SELLER_CATEGORIES): read by the composition root when it makes the sink. */
  sellerCategories?: number[];
  maxAgeMs: number;
  eraseAfterMs: number;
  /** Erase the personal data of dead letters this long after they died. */
  deadEraseAfterMs: number;
  /** Keep a quarantined lead (honeypot filled in) this long after acceptance, then erase it (LEAD_QUARANTINE_DAYS; default 14 days). */
  quarantineMs?: number;
  retryBaseMs: number;
  retryMaxMs: number;
  reconcileDelayMs: number;
  /** The first look-up after a write with an unknown outcome (ms); default the smaller of 2 s and reconcileDelayMs. */
  earlyLookupMs?: number;
  concurrency: number;
  pollMs: number;
  /** How long a claim on a row lasts (ms) before another relay sharing the outbox may take it over. */
  claimLeaseMs?: number;
}

/** Acceptance limits and delivery of enquiries, durations in ms: the delivery worker's own settings, and the routes' limits. */
export interface EnquirySettings extends EnquiryDeliveryConfig {
  rateLimitPerMinute: number;
  /** Per client (IP) per UTC day. */
  dailyLimitPerClient: number;
  /** All clients together, per UTC day. */
  dailyBudget: number;
  minFillMs: number;
}

/** Saved searches (server/saved-searches/): acceptance takes the enquiry limits per client; these are their own. */
export interface SavedSearchSettings {
  /** All clients together, per UTC day. */
  dailyBudget: number;
  /** CRM contact categories a follower is put in (none: step skipped). */
  categoryIds: number[];
  /** Leave a holding-area enquiry for each new saved search. */
  holdingEnquiry: boolean;
  /** SAVED_SEARCH_CONFIRMATION: double opt-in by e-mail, or an agent confirms. */
  confirmation: 'email' | 'agent';
  /** SAVED_SEARCH_CONFIRM_DAYS: how long the e-mailed link works, and when an unconfirmed search is erased. */
  confirmDays: number;
}

/** Counting what happens to listings without tracking (server/visits/). */
export interface VisitSettings {
  /** VISIT_BUFFER_EVENTS: events held in memory between writes; past it they are dropped (and counted). */
  bufferEvents: number;
  /** VISIT_FLUSH_MS: how often the held events are written. */
  flushMs: number;
  /** VISIT_RETENTION_DAYS: days of counts kept. */
  retentionDays: number;
  /** VISIT_BEACONS_PER_MINUTE: beacons one client may send a minute (0: no limit). */
  beaconsPerMinute: number;
}

/** The relay's SMTP server and sender (server/mail/); each agency may have its own (AGENCIES_FILE). */
export interface MailSettings {
  /** SMTP_URL: holds the password; show it only through parseSmtpUrl's `describe`. */
  smtpUrl?: string;
  /** MAIL_FROM as given (checked by parseMailFrom). */
  from?: string;
}

/** The agency's own site, where its reverse proxy serves the relay's listing pages (server/pages). */
export interface SiteSettings {
  /** Canonical URLs and sitemaps name it; unset: the relay's public address. */
  url: string | undefined;
  listingPath: string;
  wrapperUrl: string | undefined;
  wrapperMinutes: number;
  timeZone: string;
  /** SITE_LANGUAGE: the pages' language, a code of contract/languages.ts as written there. */
  language: string;
  /** SITE_LANGUAGES: the others the pages are offered in (`?lang=`), without `language`. */
  otherLanguages: readonly string[];
  /** ISO 3166-1 alpha-2, upper case: where the agency's listings are (the geocoder's country when a record names none). */
  country: string;
  name: string | undefined;
  /** The office's phone number as the agency writes it. */
  phone: string | undefined;
  /** The agency's colour, #rrggbb (its seller reports wear it). */
  brandColour: string | undefined;
}

/** Who of the agency's people the public sees, in what order, and how they are reached (server/listings/team.ts). */
export interface TeamSettings {
  /** CRM user ids shown first, in this order. */
  order: readonly number[];
  /** CRM user ids never shown. */
  hidden: readonly number[];
  /** Agents' own e-mail and mobile shown (else: no e-mail, the office line). */
  directContact: boolean;
}

/** The relay's settings, grouped by concern: converted once from the flat environment (loadConfig). */
export interface Config {
  demoMode: boolean;
  /** AGENCIES_FILE: many agencies on the key, each under /a/<slug>/ (server/compose/). Undefined: one agency at the root. */
  agenciesFile: string | undefined;
  nodeEnv: string | undefined;
  dataDir: string;
  /** postgres://…: the shared store (server/store/postgres.ts); undefined: SQLite in dataDir alone. */
  databaseUrl: string | undefined;
  /** LOG_LEVEL, or undefined when unset (runtime/log.ts then chooses by where the log goes). */
  logLevel: EnvSettings['LOG_LEVEL'];
  logFormat: EnvSettings['LOG_FORMAT'];
  http: HttpSettings;
  crm: CrmSettings;
  listings: ListingSettings;
  photos: PhotoSettings;
  places: PlacesSettings;
  tiles: TileSettings;
  enquiries: EnquirySettings;
  savedSearches: SavedSearchSettings;
  visits: VisitSettings;
  mail: MailSettings;
  site: SiteSettings;
  team: TeamSettings;
  /** Demo mode: listings the embedded simulator seeds. */
  simListings: number;
}

const HOUR_MS = 60 * 60_000;
const DAY_MS = 24 * HOUR_MS;

/** The flat environment, grouped by concern (and hours and days made ms where the relay counts in ms). */
export function groupSettings(env: EnvSettings, demoMode: boolean): Config {
  return {
    demoMode,
    agenciesFile: env.AGENCIES_FILE,
    nodeEnv: env.NODE_ENV,
    dataDir: env.DATA_DIR,
    databaseUrl: env.DATABASE_URL,
    logLevel: env.LOG_LEVEL,
    logFormat: env.LOG_FORMAT,
    http: {
      port: env.PORT,
      host: env.HOST,
      publicUrl: env.PUBLIC_URL,
      trustProxy: env.TRUST_PROXY,
      allowedOrigins: env.ALLOWED_ORIGINS,
      metricsToken: env.METRICS_TOKEN,
      answerCacheBytes: env.ANSWER_CACHE_MB * 1024 * 1024,
      uncachedRendersPerMinute: env.UNCACHED_RENDERS_PER_MINUTE,
    },
    crm: {
      baseUrl: env.CRM_BASE_URL,
      apiKey: env.CRM_API_KEY,
      accessToken: env.CRM_ACCESS_TOKEN,
      requestsPerSecond: env.CRM_REQUESTS_PER_SECOND,
      dailyLimit: env.CRM_DAILY_LIMIT,
      timeoutMs: env.CRM_TIMEOUT_MS,
      usageCheckMinutes: env.CRM_USAGE_CHECK_MINUTES,
      budgetShare: env.CRM_BUDGET_SHARE,
    },
    listings: {
      syncIntervalMinutes: env.SYNC_INTERVAL_MINUTES,
      listPollMinutes: env.LIST_POLL_MINUTES,
      syncLeaseMs: env.SYNC_LEASE_MS,
      replicaMaxLagSeconds: env.REPLICA_MAX_LAG_SECONDS,
      fullSweepHours: env.FULL_SWEEP_HOURS,
      classes: env.LISTING_CLASSES,
      soldDays: env.SOLD_DAYS,
      webhookToleranceSeconds: env.WEBHOOK_TOLERANCE_SECONDS,
      webhookDailyRefreshes: env.WEBHOOK_DAILY_REFRESHES,
    },
    photos: { hosts: env.PHOTO_HOSTS, widths: env.PHOTO_WIDTHS, maxBytes: env.PHOTO_MAX_BYTES },
    places: {
      geocoderUrl: env.GEOCODER_URL,
      email: env.GEOCODER_EMAIL,
      requestsPerSecond: env.GEOCODER_REQUESTS_PER_SECOND,
      timeoutMs: env.GEOCODER_TIMEOUT_MS,
    },
    tiles: {
      url: env.MAP_TILE_URL,
      labelUrl: env.MAP_LABEL_TILE_URL,
      attribution: env.MAP_ATTRIBUTION,
      cacheBytes: env.MAP_TILE_CACHE_MB * 1024 * 1024,
      maxZoom: env.MAP_MAX_ZOOM,
      ratePerMinute: env.MAP_TILE_RATE_PER_MINUTE,
    },
    savedSearches: {
      dailyBudget: env.SAVED_SEARCH_DAILY_BUDGET,
      categoryIds: env.SAVED_SEARCH_CATEGORY_IDS,
      holdingEnquiry: env.SAVED_SEARCH_HOLDING_ENQUIRY === '1',
      confirmation: env.SAVED_SEARCH_CONFIRMATION,
      confirmDays: env.SAVED_SEARCH_CONFIRM_DAYS,
    },
    visits: {
      bufferEvents: env.VISIT_BUFFER_EVENTS,
      flushMs: env.VISIT_FLUSH_MS,
      retentionDays: env.VISIT_RETENTION_DAYS,
      beaconsPerMinute: env.VISIT_BEACONS_PER_MINUTE,
    },
    mail: {
      ...(env.SMTP_URL !== undefined ? { smtpUrl: env.SMTP_URL } : {}),
      ...(env.MAIL_FROM !== undefined ? { from: env.MAIL_FROM } : {}),
    },
    site: {
      url: env.SITE_URL,
      listingPath: env.SITE_LISTING_PATH,
      wrapperUrl: env.SITE_WRAPPER_URL,
      wrapperMinutes: env.SITE_WRAPPER_MINUTES,
      timeZone: env.SITE_TIME_ZONE,
      language: env.SITE_LANGUAGE,
      otherLanguages: env.SITE_LANGUAGES.filter((code) => code !== env.SITE_LANGUAGE),
      country: env.SITE_COUNTRY,
      name: env.SITE_NAME,
      phone: env.SITE_PHONE,
      brandColour: env.SITE_BRAND_COLOUR,
    },
    team: { order: env.TEAM_ORDER, hidden: env.TEAM_HIDDEN, directContact: env.AGENT_DIRECT_CONTACT === '1' },
    enquiries: {
      source: env.ENQUIRY_SOURCE,
      sellerCategories: env.ENQUIRY_SELLER_CATEGORIES,
      maxAgeMs: env.ENQUIRY_MAX_AGE_HOURS * HOUR_MS,
      eraseAfterMs: env.ENQUIRY_ERASE_AFTER_DAYS * DAY_MS,
      deadEraseAfterMs: env.ENQUIRY_DEAD_ERASE_AFTER_DAYS * DAY_MS,
      quarantineMs: env.LEAD_QUARANTINE_DAYS * DAY_MS,
      retryBaseMs: env.ENQUIRY_RETRY_BASE_MS,
      retryMaxMs: env.ENQUIRY_RETRY_MAX_MS,
      reconcileDelayMs: env.ENQUIRY_RECONCILE_DELAY_MS,
      earlyLookupMs: env.ENQUIRY_EARLY_LOOKUP_MS,
      concurrency: env.ENQUIRY_DELIVERY_CONCURRENCY,
      pollMs: env.ENQUIRY_POLL_MS,
      claimLeaseMs: env.ENQUIRY_CLAIM_LEASE_MS,
      rateLimitPerMinute: env.ENQUIRY_RATE_LIMIT_PER_MINUTE,
      dailyLimitPerClient: env.ENQUIRY_DAILY_LIMIT_PER_CLIENT,
      dailyBudget: env.ENQUIRY_DAILY_BUDGET,
      minFillMs: env.ENQUIRY_MIN_FILL_MS,
    },
    simListings: env.SIM_LISTINGS,
  };
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const credentialNames = ['CRM_BASE_URL', 'CRM_API_KEY', 'CRM_ACCESS_TOKEN'] as const;

/** Names Express gives the usual private ranges (see proxy-addr). */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * TRUST_PROXY → Express's `trust proxy`. `true` (trust every hop) is refused: X-Forwarded-For
 * would then be whatever the client wrote, and with it its rate-limit key.
 */
function parseTrustProxy(value: string, context: z.RefinementCtx): false | number | string[] {
  const text = value.trim();
  if (text === 'false') return false;
  if (text === 'true') {
    context.addIssue({
      code: 'custom',
      message: 'true is refused (any client could pick its address with X-Forwarded-For): give the hop count (e.g. 1) or the proxy subnets (e.g. loopback)',
    });
    return z.NEVER;
  }
  if (/^\d{1,2}$/.test(text)) return Number(text);
  const entries = text.split(',').map((entry) => entry.trim());
  const bad = entries.filter((entry) => !PROXY_RANGE_NAMES.has(entry) && !isAddressOrSubnet(entry));
  if (bad.length || entries.length === 0) {
    context.addIssue({
      code: 'custom',
      message: `must be false, a hop count, or subnets/addresses such as loopback or 10.0.0.0/8 (not understood: ${bad.map((entry) => `"${entry}"`).join(', ')})`,
    });
    return z.NEVER;
  }
  return entries;
}

function isAddressOrSubnet(entry: string): boolean {
  const [address, prefix, ...rest] = entry.split('/');
  const family = isIP(address ?? '');
  if (family === 0 || rest.length) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * Demo mode (embedded simulator, demo site, any origin) only by choice: DEMO_MODE=1, or nothing
 * CRM-related set outside production. A half-filled template must fail, never quietly serve the demo.
 */
function decideDemoMode(env: Record<string, string>, problems: string[]): boolean {
  const credentialsGiven = credentialNames.filter((name) => env[name] !== undefined);
  if (env.AGENCIES_FILE !== undefined) return decideAgenciesMode(env, problems);
  if (env.DEMO_MODE === '1') {
    if (credentialsGiven.length) {
      problems.push(
        `DEMO_MODE: is 1 (the embedded CRM simulator) but ${credentialsGiven.join(', ')} ${credentialsGiven.length > 1 ? 'are' : 'is'} set: unset one or the other`,
      );
    }
    return true;
  }
  const crmRelated = Object.keys(env).filter((name) => name.startsWith('CRM_'));
  if (env.DEMO_MODE !== '0' && crmRelated.length === 0 && env.NODE_ENV !== 'production') return true;
  const why =
    env.DEMO_MODE === '0'
      ? 'DEMO_MODE=0'
      : crmRelated.length
        ? `${crmRelated.join(', ')} ${crmRelated.length > 1 ? 'are' : 'is'} set`
        : 'NODE_ENV=production never runs the demo (DEMO_MODE=1 does)';
  for (const name of credentialNames) {
    if (env[name] === undefined) problems.push(`${name}: is required to use a real CRM (${why}); set all three`);
  }
  return false;
}

/**
 * DATABASE_URL must be a postgres:// URL naming a host and a database. The messages never repeat
 * the value: it holds the password.
 */
function checkDatabaseUrl(value: string, context: z.RefinementCtx): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    context.addIssue({ code: 'custom', message: 'must be a URL such as postgres://relay:password@db.internal:5432/estate' });
    return;
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    context.addIssue({
      code: 'custom',
      message: `must start with postgres:// (got a ${url.protocol.replace(/:$/, '')}:// URL); unset it to keep the SQLite store in DATA_DIR`,
    });
    return;
  }
  if (!url.hostname && !url.searchParams.get('host'))
    context.addIssue({ code: 'custom', message: 'must name the database host, e.g. postgres://relay:password@db.internal:5432/estate' });
  if (url.pathname.replace(/^\//, '') === '')
    context.addIssue({ code: 'custom', message: 'must name the database after the host, e.g. postgres://…@db.internal:5432/estate' });
}

/** Settings each agency has in AGENCIES_FILE: refused beside it, so nobody wonders which one wins. */
const perAgencySettings: Record<string, string> = {
  CRM_ACCESS_TOKEN: 'accessToken',
  ALLOWED_ORIGINS: 'allowedOrigins',
  SITE_URL: 'siteUrl',
  SITE_NAME: 'name',
  SITE_PHONE: 'phone',
  // One shell for every agency would show one agency's header and footer on the others' pages.
  SITE_WRAPPER_URL: 'wrapperUrl',
};

/** AGENCIES_FILE: a real CRM always (the key and base URL here, the tokens in the file), never the demo. */
function decideAgenciesMode(env: Record<string, string>, problems: string[]): false {
  if (env.DEMO_MODE === '1') problems.push('DEMO_MODE: is 1 (the embedded CRM simulator) but AGENCIES_FILE is set: unset one or the other');
  for (const name of ['CRM_BASE_URL', 'CRM_API_KEY'] as const) {
    if (env[name] === undefined) problems.push(`${name}: is required with AGENCIES_FILE (the integrator's key, shared by every agency in the file)`);
  }
  for (const [name, field] of Object.entries(perAgencySettings)) {
    if (env[name] !== undefined) problems.push(`${name}: is set per agency with AGENCIES_FILE (its "${field}" in the file): remove ${name}`);
  }
  return false;
}

/** SMTP_URL: smtp:// or smtps://, naming a host; the message never repeats the value (it holds the password). */
function checkSmtpUrl(value: string, context: z.RefinementCtx): void {
  const target = parseSmtpUrl(value);
  if (typeof target === 'string') context.addIssue({ code: 'custom', message: target });
}

/** MAIL_FROM: a bare address, or a name and an address. */
function checkMailFrom(value: string, context: z.RefinementCtx): void {
  const from = parseMailFrom(value);
  if (typeof from === 'string') context.addIssue({ code: 'custom', message: from });
}

/**
 * MAP_TILE_URL (and MAP_LABEL_TILE_URL): an http(s) URL holding {z}, {x} and {y} in its path or query (never in its host:
 * the relay fetches from that one host only), without user name or password.
 */
function checkTileTemplate(value: string, context: z.RefinementCtx): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    context.addIssue({
      code: 'custom',
      message: 'must be a URL template such as https://tiles.example/{z}/{x}/{y}.png (placeholders in the path, not the host)',
    });
    return;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') context.addIssue({ code: 'custom', message: 'must be an http(s) URL' });
  if (url.username || url.password) context.addIssue({ code: 'custom', message: 'must not hold a user name or password' });
  if (/[{}]/.test(url.host)) context.addIssue({ code: 'custom', message: 'must name one host: placeholders ({s}, {z} …) go in the path, not the host' });
  const missing = ['{z}', '{x}', '{y}'].filter((part) => !value.includes(part));
  if (missing.length)
    context.addIssue({ code: 'custom', message: `must contain ${missing.join(', ')} (a template such as https://tiles.example/{z}/{x}/{y}.png)` });
}

/** Whether Intl knows `zone` as an IANA time zone (SITE_TIME_ZONE, and an agency's timeZone in AGENCIES_FILE). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Parses the environment; throws a ConfigError naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const present: Record<string, string> = {};
  for (const name of Object.keys(configSchema.shape)) {
    const value = env[name];
    if (value === undefined) continue;
    // An unfilled template line (CRM_API_KEY=) is a mistake, not "unset": say so rather than guess.
    if (value === '') problems.push(`${name}: is set but empty (give it a value, or remove the line)`);
    else present[name] = value;
  }
  const demoMode = decideDemoMode(present, problems);
  const result = configSchema.safeParse(present);
  if (!result.success) {
    problems.unshift(
      ...result.error.issues.map((issue) => {
        const name = issue.path.length ? String(issue.path[0]) : '(environment)';
        const value = present[name];
        const shown = value === undefined || /KEY|TOKEN|SECRET|DATABASE_URL|SMTP_URL/.test(name) ? '' : ` (got "${value}")`;
        return `${name}: ${issue.message}${shown}`;
      }),
    );
  }
  if (present.MAP_TILE_URL !== undefined && present.MAP_ATTRIBUTION === undefined) {
    problems.push(
      'MAP_ATTRIBUTION: is required with MAP_TILE_URL: the tile provider\'s attribution, shown on the map (e.g. "© OpenStreetMap contributors"; see the provider\'s terms)',
    );
  }
  if (present.MAP_LABEL_TILE_URL !== undefined && present.MAP_TILE_URL === undefined) {
    problems.push(
      "MAP_LABEL_TILE_URL: is set without MAP_TILE_URL: a labels layer is drawn over base tiles (set MAP_TILE_URL to the same provider's base without labels, or remove MAP_LABEL_TILE_URL)",
    );
  }
  // Left unset, it is the smaller of its default and the reconcile delay (lead-queue/worker-loop.ts).
  if (result.success && present.ENQUIRY_EARLY_LOOKUP_MS !== undefined && result.data.ENQUIRY_EARLY_LOOKUP_MS > result.data.ENQUIRY_RECONCILE_DELAY_MS) {
    problems.push(
      `ENQUIRY_EARLY_LOOKUP_MS: must be at most ENQUIRY_RECONCILE_DELAY_MS (${result.data.ENQUIRY_RECONCILE_DELAY_MS}): the early look-up comes before the one that is believed (got "${result.data.ENQUIRY_EARLY_LOOKUP_MS}")`,
    );
  }
  if (!demoMode && present.PUBLIC_URL === undefined) {
    problems.push("PUBLIC_URL: is required outside demo mode: the https URL browsers reach the relay at (photo URLs and the relay's own origin come from it)");
  }
  if (!result.success || problems.length) throw new ConfigError(problems);
  return groupSettings(result.data, demoMode);
}
