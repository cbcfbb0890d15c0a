import { z } from 'zod';

/** Comma-separated list → trimmed, non-empty entries. */
const csv = z
  .string()
  .transform((value) => value.split(',').map((part) => part.trim()).filter(Boolean));

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/**
 * The relay's whole configuration, read once from the environment. Variable names are a public
 * contract: deployments depend on them. Every entry has a description: the README's configuration
 * table is generated from this schema.
 */
export const configSchema = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(8787).describe('TCP port the relay listens on.'),
    HOST: z.string().min(1).default('0.0.0.0').describe('Interface the relay binds to.'),
    DATA_DIR: z.string().min(1).default('./data').describe('Folder for the SQLite store and the photo mirror.'),
    CRM_BASE_URL: z
      .url()
      .refine((value) => /\/api\/v1\.3\/?$/.test(value), 'must end in /api/v1.3')
      .optional()
      .describe('Base URL of the CRM API, ending in /api/v1.3. Unset with no credentials: demo mode.'),
    CRM_API_KEY: z.string().min(1).optional().describe('The integrator API key (X-Api-Key). Secret.'),
    CRM_ACCESS_TOKEN: z.string().min(1).optional().describe("The agency account's access token (Bearer). Secret."),
    CRM_REQUESTS_PER_SECOND: positiveInt(10).describe('Upstream request rate limit per API key.'),
    CRM_DAILY_LIMIT: positiveInt(10_000).describe('Upstream requests per UTC day per API key.'),
    CRM_TIMEOUT_MS: positiveInt(15_000).describe('Timeout of one upstream request, in milliseconds.'),
    ALLOWED_ORIGINS: csv
      .pipe(z.array(z.url({ message: 'each entry must be an origin such as https://agency.example' })))
      .default([])
      .describe('Comma-separated origins of the agency sites allowed to call the relay API.'),
    PUBLIC_URL: z.url().optional().describe('URL at which browsers reach the relay (for printed script tags).'),
    TRUST_PROXY: z.string().default('false').describe('Express trust proxy setting: false, true, a hop count or subnets.'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info').describe('Log level.'),
    SIM_LISTINGS: positiveInt(40).describe('Demo mode: number of listings the embedded simulator seeds.'),
    ENQUIRY_RATE_LIMIT_PER_MINUTE: positiveInt(5).describe(
      'Enquiries one client (IP address) may send per minute; more get 429 with Retry-After. Repeats of an accepted originalId do not count.',
    ),
    ENQUIRY_SOURCE: z.string().min(1).default('OFFICEWEBSITE').describe("The CRM holding-area `source` of forwarded enquiries ('OFFICEWEBSITE' for an agency's own site)."),
    ENQUIRY_MAX_AGE_HOURS: z.coerce
      .number()
      .positive()
      .default(72)
      .describe('Hours an enquiry is retried (CRM 429, 5xx, timeouts) before it is dead-lettered.'),
    ENQUIRY_ERASE_AFTER_DAYS: z.coerce
      .number()
      .min(0)
      .default(7)
      .describe("Days after delivery when an enquiry's personal data is erased from the relay's outbox."),
    ENQUIRY_DEAD_ERASE_AFTER_DAYS: z.coerce
      .number()
      .min(0)
      .default(30)
      .describe("Days after an enquiry is dead-lettered when its personal data is erased (it can no longer be retried then)."),
    ENQUIRY_MIN_FILL_MS: z.coerce
      .number()
      .int()
      .min(0)
      .default(3000)
      .describe('A form sent sooner than this after it was shown (elapsedMs) is taken for a bot: answered 202, not forwarded. 0 turns the check off.'),
    ENQUIRY_RETRY_BASE_MS: positiveInt(10_000).describe('First delivery retry delay in ms; doubles per attempt, with jitter.'),
    ENQUIRY_RETRY_MAX_MS: positiveInt(30 * 60_000).describe('Longest delay between two delivery attempts, in ms.'),
    ENQUIRY_RECONCILE_DELAY_MS: z.coerce
      .number()
      .int()
      .min(0)
      .default(30_000)
      .describe('After a POST with an unknown outcome, wait this long (ms) before looking the enquiry up in the CRM, so a slow request can land first.'),
    ENQUIRY_DELIVERY_CONCURRENCY: positiveInt(2).describe('Enquiries sent to the CRM at the same time (oldest first; the CRM rate limit still applies).'),
    ENQUIRY_POLL_MS: positiveInt(2000).describe('How often (ms) the delivery worker looks for work queued by other processes (the outbox CLI).'),
    SYNC_INTERVAL_MINUTES: z.coerce.number().positive().default(5).describe(
      "Minutes between reads of the CRM's event stream (one request each), which refresh the listings webhooks missed: the catch-up promised when a webhook is lost.",
    ),
    LIST_POLL_MINUTES: z.coerce.number().positive().default(60).describe('Minutes between modifiedSince reads of every listing list, the net under the event stream.'),
    FULL_SWEEP_HOURS: positiveInt(6).describe(
      'Hours between full listing sweeps; a listing that leaves the CRM available list disappears within one sweep.',
    ),
    LISTING_CLASSES: csv
      .pipe(z.array(z.enum(['residential', 'commercial', 'land', 'rural'])).min(1))
      .default(['residential'])
      .describe('Comma-separated property classes to sync: residential, commercial, land, rural.'),
    SOLD_DAYS: z.coerce
      .number()
      .int()
      .min(0)
      .max(3650)
      .default(90)
      .describe('Days of sold and leased residential listings kept for a showcase; 0 turns it off.'),
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
      .pipe(
        z
          .array(z.string().regex(/^\d+$/, 'each entry must be a whole number of pixels').transform(Number).pipe(z.number().int().min(64).max(4096)))
          .min(1),
      )
      .default([480, 960, 1600])
      .describe('Comma-separated widths (pixels) of the WebP and JPEG variants made of each photo.'),
    PHOTO_MAX_BYTES: positiveInt(15_000_000).describe('Largest photo file the mirror downloads, in bytes.'),
    CRM_BUDGET_SHARE: z.coerce
      .number()
      .gt(0)
      .max(1)
      .default(0.5)
      .describe('Largest share of CRM_DAILY_LIMIT the listing sync may plan to use; the relay refuses to start above it.'),
  });

export type Config = z.infer<typeof configSchema> & { demoMode: boolean };

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const credentialNames = ['CRM_BASE_URL', 'CRM_API_KEY', 'CRM_ACCESS_TOKEN'] as const;

/** The three CRM settings go together: all of them (a real CRM) or none (demo mode). */
function missingCredentials(env: Record<string, string | undefined>): string[] {
  const missing = credentialNames.filter((name) => env[name] === undefined);
  if (missing.length === 0 || missing.length === credentialNames.length) return [];
  return missing.map((name) => `${name}: is required when any CRM setting is given (set all three, or none for demo mode)`);
}

/** Parses the environment; throws a ConfigError naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings mean "unset", as in most deployment tools.
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const result = configSchema.safeParse(present);
  const problems = missingCredentials(present);
  if (!result.success) {
    problems.unshift(...result.error.issues.map((issue) => {
      const name = issue.path.length ? String(issue.path[0]) : '(environment)';
      const value = present[name];
      const shown = value === undefined || /KEY|TOKEN|SECRET/.test(name) ? '' : ` (got "${value}")`;
      return `${name}: ${issue.message}${shown}`;
    }));
  }
  if (!result.success || problems.length) throw new ConfigError(problems);
  return { ...result.data, demoMode: result.data.CRM_API_KEY === undefined };
}
