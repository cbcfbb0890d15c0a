import { pino, type Logger, type LoggerOptions } from 'pino';

/**
 * Paths pino blanks in every log line: credentials and the personal data of enquiries.
 * Logging an object that holds any of these never writes them out.
 */
export const redactedPaths = [
  'apiKey', 'accessToken', 'token', 'secret', 'password',
  '*.apiKey', '*.accessToken', '*.token', '*.secret', '*.password',
  'req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie',
  'headers.authorization', 'headers["x-api-key"]',
  'CRM_API_KEY', 'CRM_ACCESS_TOKEN', '*.CRM_API_KEY', '*.CRM_ACCESS_TOKEN',
  'fullName', 'firstName', 'lastName', 'email', 'mobile', 'telephone', 'message', 'body',
  '*.fullName', '*.firstName', '*.lastName', '*.email', '*.mobile', '*.telephone', '*.message', '*.body',
];

export type { Logger };

export function createLogger(options: LoggerOptions = {}, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level: process.env.LOG_LEVEL ?? 'info',
      redact: { paths: redactedPaths, censor: '[redacted]' },
      base: { service: 'estate-embed' },
      ...options,
    },
    destination,
  );
}

/** A logger that writes nothing: the default in tests. */
export const silentLogger: Logger = pino({ level: 'silent' });
