import { pino, type Level, type Logger, type LoggerOptions } from 'pino';
import { isPhoneNumber } from '../../contract/phone.ts';

/**
 * Paths pino blanks in every log line: credentials and the personal data of enquiries.
 * Logging an object that holds any of these never writes them out.
 */
export const redactedPaths = [
  'apiKey',
  'accessToken',
  'token',
  'secret',
  'password',
  '*.apiKey',
  '*.accessToken',
  '*.token',
  '*.secret',
  '*.password',
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'headers.authorization',
  'headers["x-api-key"]',
  'CRM_API_KEY',
  'CRM_ACCESS_TOKEN',
  '*.CRM_API_KEY',
  '*.CRM_ACCESS_TOKEN',
  'DATABASE_URL',
  '*.DATABASE_URL',
  'databaseUrl',
  '*.databaseUrl',
  'SMTP_URL',
  '*.SMTP_URL',
  'smtpUrl',
  '*.smtpUrl',
  // The grouped settings (config.ts), should a settings object ever be logged.
  'crm.apiKey',
  'crm.accessToken',
  '*.crm.apiKey',
  '*.crm.accessToken',
  'http.metricsToken',
  '*.http.metricsToken',
  'fullName',
  'firstName',
  'lastName',
  'email',
  'mobile',
  'telephone',
  'message',
  'body',
  '*.fullName',
  '*.firstName',
  '*.lastName',
  '*.email',
  '*.mobile',
  '*.telephone',
  '*.message',
  '*.body',
];

export type { Logger };

const EMAIL = /[^\s@<>()[\]"'`,;:]+@[^\s@<>()[\]"'`,;:]+\.[a-z]{2,}/gi;
/** Runs that may be a phone number; each is kept unless contract/phone.ts takes it for one. */
const PHONE_CANDIDATE = /(?<![\w.])(?:\+|0)[\d\s\-().]{5,24}\d/g;

/** Email addresses and phone numbers in free text (an error's message or stack) replaced by placeholders. */
export function scrubPersonalData(text: string): string {
  return text.replace(EMAIL, '[email]').replace(PHONE_CANDIDATE, (run) => (isPhoneNumber(run) ? '[phone]' : run));
}

function scrubDeep(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrubPersonalData(value);
  if (depth > 5 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => scrubDeep(item, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, scrubDeep(item, depth + 1)]));
}

/**
 * Errors keep their type and stack (what an operator needs), but a message that quotes a visitor
 * (a CRM 400 echoing the enquiry, a driver error with a value in it) loses the email and phone.
 */
export function serializeError(error: unknown): unknown {
  if (!(error instanceof Error)) return scrubDeep(error);
  return scrubDeep(pino.stdSerializers.err(error));
}

export function createLogger(options: LoggerOptions = {}, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level: process.env.LOG_LEVEL ?? 'info',
      redact: { paths: redactedPaths, censor: '[redacted]' },
      serializers: { err: serializeError, error: serializeError },
      hooks: {
        // `log.error(error)` makes the error's message the line's msg: scrub it like the stack.
        logMethod(args, method) {
          if (args[0] instanceof Error && args.length === 1) return method.call(this, args[0], scrubPersonalData(args[0].message));
          return method.apply(this, args);
        },
      },
      base: { service: 'estate-embed' },
      ...options,
    },
    destination,
  );
}

export type LogFormat = 'json' | 'pretty';

/**
 * The relay's own log (server/main.ts): JSON lines where an operator collects them (not a terminal,
 * or LOG_FORMAT=json); on a terminal a short human line each (pino-pretty, the pino project's own
 * formatter), warnings and errors only unless LOG_LEVEL says otherwise: the start-up banner and the
 * sync's progress line say what a person at the terminal needs, so the log adds only what went wrong.
 */
export async function createRelayLogger(settings: { level: Level | 'silent' | undefined; format: LogFormat | undefined }, terminal: boolean): Promise<Logger> {
  const format = settings.format ?? (terminal ? 'pretty' : 'json');
  if (format === 'json') return createLogger({ level: settings.level ?? 'info' });
  // Loaded only for a human log: a relay writing JSON (a service, the tests) never loads the formatter.
  const { default: pinoPretty } = await import('pino-pretty');
  const pretty = pinoPretty({
    colorize: terminal,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname,service',
    singleLine: true,
    sync: true,
  });
  return createLogger({ level: settings.level ?? (terminal ? 'warn' : 'info') }, pretty);
}

/** A logger that writes nothing: the default in tests. */
export const silentLogger: Logger = pino({ level: 'silent' });
