import { renderImage } from './photos.ts';
import { DEFAULT_ACCESS_TOKEN, DEFAULT_API_KEY, MAX_AGENCIES, startSimulator } from './simulator.ts';

/**
 * `npm run crm-sim`: the CRM simulator on its own, for the demo and for pointing a relay at it.
 * SIM_PORT (default 8788), SIM_HOST (default 127.0.0.1), SIM_API_KEY, SIM_ACCESS_TOKEN,
 * SIM_LISTINGS (default 40), SIM_SEED (default 1), SIM_WEBHOOK_URL (where signed webhooks go; unset:
 * none), SIM_WEBHOOK_DROP_RATE (0-1, the share of webhooks lost on purpose), SIM_AGENCIES (accounts
 * on the one key, default 1; more through POST /__sim/accounts), SIM_PHOTOS_PER_LISTING (keep only
 * that many photos a listing: cheap accounts for benches), SIM_MAIL_PORT (the mail catcher's SMTP
 * port on 127.0.0.1; default any free one).
 */

function dropRate(): number {
  const raw = process.env.SIM_WEBHOOK_DROP_RATE;
  if (raw === undefined || raw === '') return 0;
  const value = Number(raw);
  if (!(value >= 0 && value <= 1)) {
    console.error(`SIM_WEBHOOK_DROP_RATE must be a number from 0 to 1 (got "${raw}")`);
    process.exit(2);
  }
  return value;
}

function webhookUrl(): string | undefined {
  const raw = process.env.SIM_WEBHOOK_URL;
  if (raw === undefined || raw === '') return undefined;
  if (!/^https?:\/\/[^\s]+$/.test(raw)) {
    console.error(`SIM_WEBHOOK_URL must be an http(s) URL (got "${raw}")`);
    process.exit(2);
  }
  return raw;
}

function positiveInt(name: string, fallback: number, min = 1): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    console.error(`${name} must be a whole number of at least ${min} (got "${raw}")`);
    process.exit(2);
  }
  return value;
}

const port = positiveInt('SIM_PORT', 8788, 0);
const agencies = positiveInt('SIM_AGENCIES', 1);
if (agencies > MAX_AGENCIES) {
  console.error(`SIM_AGENCIES must be a whole number from 1 to ${MAX_AGENCIES} (got "${agencies}")`);
  process.exit(2);
}
const photosPerListing = process.env.SIM_PHOTOS_PER_LISTING ? positiveInt('SIM_PHOTOS_PER_LISTING', 1, 0) : undefined;
const sim = await startSimulator({
  agencies,
  ...(photosPerListing === undefined ? {} : { photosPerListing }),
  port,
  host: process.env.SIM_HOST || '127.0.0.1',
  apiKey: process.env.SIM_API_KEY || DEFAULT_API_KEY,
  accessToken: process.env.SIM_ACCESS_TOKEN || DEFAULT_ACCESS_TOKEN,
  listings: positiveInt('SIM_LISTINGS', 40),
  seed: positiveInt('SIM_SEED', 1, 0),
  webhookUrl: webhookUrl(),
  webhookDropRate: dropRate(),
  ...(process.env.SIM_MAIL_PORT ? { mailPort: positiveInt('SIM_MAIL_PORT', 0, 0) } : {}),
});

/** The accounts on the key with their tokens (a local simulator's, not secrets); a long list is cut short. */
function describeAccounts(): string {
  const shown = sim.key.accounts.slice(0, 5).map((account) => `${account.accountId} ${account.agency.name}: ${account.options.accessToken}`);
  const more = sim.key.accounts.length - shown.length;
  return [...shown, ...(more > 0 ? [`… and ${more} more (GET ${sim.origin}/__sim/accounts)`] : [])].join('\n                ');
}

console.log(`CRM simulator listening
  base URL      ${sim.baseUrl}
  API key       ${sim.apiKey}      (header X-Api-Key)
  access token  ${sim.accessToken}      (header Authorization: Bearer ...)
  control       ${sim.origin}/__sim/counters
  back office   ${sim.origin}/__sim/      (mail received, contacts, the holding area)
  mail catcher  ${sim.mail.url}      (SMTP, any login; GET ${sim.origin}/__sim/mail)
  listings      ${sim.state.listings.length}${sim.key.accounts.length > 1 ? ' an account' : ''}
  accounts      ${describeAccounts()}
  webhooks      ${sim.state.webhooks.url ?? 'off (set SIM_WEBHOOK_URL)'}${sim.state.webhooks.settings.dropRate ? `, dropping ${sim.state.webhooks.settings.dropRate * 100}%` : ''}

Point the relay at it:
  CRM_BASE_URL=${sim.baseUrl} CRM_API_KEY=${sim.apiKey} CRM_ACCESS_TOKEN=${sim.accessToken} SMTP_URL=${sim.mail.url} MAIL_FROM=alerts@agency.example npm start`);

// Warm the photo pool in the background so the first photo requests answer quickly.
void (async () => {
  const scenes = new Set(
    sim.key.accounts.flatMap((account) => account.listings).flatMap((listing) => listing.photos.map((photo) => JSON.stringify(photo.image))),
  );
  for (const scene of scenes) await renderImage(JSON.parse(scene)).catch(() => undefined);
})();

let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (closing) return;
    closing = true;
    const force = setTimeout(() => process.exit(1), 5000);
    force.unref();
    void sim.close().then(() => process.exit(0));
  });
}
