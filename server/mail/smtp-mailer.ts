import { createRequire } from 'node:module';
import type { createTransport, Transporter } from 'nodemailer';
import type MailComposerClass from 'nodemailer/lib/mail-composer/index.js';
import type { Logger } from '../runtime/log.ts';
import { parseSmtpUrl, type MailFrom } from '../runtime/mail-settings.ts';
import { MailError, type Mailer, type MailMessage } from './mailer.ts';

export interface SmtpMailerOptions {
  /** SMTP_URL (or the agency's smtpUrl): smtp://[user:pass@]host[:port] (STARTTLS when offered) or smtps://… (TLS from the first byte). */
  url: string;
  /** MAIL_FROM (or the agency's mailFrom), with the agency's name when it names none (agency.ts). */
  from: MailFrom;
  log: Logger;
  /** How long to wait for the TCP (and TLS) connection; nodemailer's own default is two minutes. */
  connectionTimeoutMs?: number;
  /** How long to wait for the server's 220 greeting once connected (nodemailer: 30 s). */
  greetingTimeoutMs?: number;
  /** Longest silence of the server mid-conversation (nodemailer: ten minutes). */
  socketTimeoutMs?: number;
  /** The whole send, connection to the 250 after DATA: a server that answers slowly but never stops cannot hold a worker longer. */
  sendTimeoutMs?: number;
  /** The largest message (headers and body, as sent) the mailer sends; a larger one is refused before connecting. */
  maxMessageBytes?: number;
  /** Tests only: accept the server's self-signed certificate. */
  allowSelfSignedCertificate?: boolean;
}

export const SMTP_DEFAULTS = {
  connectionTimeoutMs: 10_000,
  greetingTimeoutMs: 10_000,
  socketTimeoutMs: 20_000,
  sendTimeoutMs: 60_000,
  /** A confirmation e-mail is a few kilobytes; 256 KiB leaves room for any HTML a feature writes. */
  maxMessageBytes: 256 * 1024,
} as const;

interface NodemailerError extends Error {
  code?: string;
  responseCode?: number;
}

/**
 * A Mailer over nodemailer's SMTP transport, one connection a message (confirmations are few; a
 * pool would hold connections open for nothing). Bounded in time (every timeout in seconds, and
 * one for the whole send) and in size (the message is composed first and refused over the cap).
 * Logs only the server's reply code and nodemailer's error code: never an address, subject or body.
 */
/**
 * nodemailer, loaded at the first message rather than at start (about 2.5 MB of a relay's memory,
 * measured in bench/memory.ts): most relays send a confirmation now and then, some never.
 */
const requireLater = createRequire(import.meta.url);

export function createSmtpMailer(options: SmtpMailerOptions): Mailer {
  const target = parseSmtpUrl(options.url);
  if (typeof target === 'string') throw new Error(`SMTP URL ${target}`);
  const log = options.log.child({ component: 'mail', smtp: target.describe });
  const maxMessageBytes = options.maxMessageBytes ?? SMTP_DEFAULTS.maxMessageBytes;
  const sendTimeoutMs = options.sendTimeoutMs ?? SMTP_DEFAULTS.sendTimeoutMs;
  let transport: Transporter | undefined;
  const transporter = () =>
    (transport ??= (requireLater('nodemailer') as { createTransport: typeof createTransport }).createTransport({
      host: target.host,
      port: target.port,
      secure: target.secure,
      auth: target.user !== undefined ? { user: target.user, pass: target.password ?? '' } : undefined,
      connectionTimeout: options.connectionTimeoutMs ?? SMTP_DEFAULTS.connectionTimeoutMs,
      greetingTimeout: options.greetingTimeoutMs ?? SMTP_DEFAULTS.greetingTimeoutMs,
      socketTimeout: options.socketTimeoutMs ?? SMTP_DEFAULTS.socketTimeoutMs,
      dnsTimeout: options.connectionTimeoutMs ?? SMTP_DEFAULTS.connectionTimeoutMs,
      tls: options.allowSelfSignedCertificate ? { rejectUnauthorized: false } : undefined,
      // nodemailer's own logger would write addresses; ours writes codes only.
      logger: false,
      debug: false,
    }));
  let closed = false;

  async function send(message: MailMessage, sendOptions: { signal?: AbortSignal } = {}): Promise<void> {
    if (closed) throw new MailError('the mailer is closed', true);
    sendOptions.signal?.throwIfAborted();
    const raw = await compose(message);
    if (raw.byteLength > maxMessageBytes) {
      log.warn({ bytes: raw.byteLength, maxMessageBytes }, 'mail refused before sending: too large');
      throw new MailError(`the message is ${raw.byteLength} bytes, more than the ${maxMessageBytes} the mailer sends`, false);
    }
    const sending = transporter().sendMail({ envelope: { from: options.from.address, to: [message.to] }, raw });
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const bounds = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new MailError(`no answer from the mail server within ${sendTimeoutMs} ms`, true)), sendTimeoutMs);
      onAbort = () => reject(new MailError('sending was cancelled', true));
      sendOptions.signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      const info = await Promise.race([sending, bounds]);
      log.info({ replyCode: replyCodeOf(info.response) }, 'mail handed to the server');
    } catch (error) {
      if (error instanceof MailError) {
        log.warn({ retryable: error.retryable }, 'mail not sent');
        throw error;
      }
      const failure = error as NodemailerError;
      const replyCode = failure.responseCode;
      // A 5xx is the server's final word on this message or recipient; everything else (no answer,
      // a dropped connection, a 4xx "try later") may pass on a later try.
      const retryable = !(replyCode !== undefined && replyCode >= 500);
      log.warn({ replyCode, errorCode: failure.code, retryable }, 'mail not sent');
      throw new MailError(
        replyCode !== undefined ? `the mail server answered ${replyCode}` : `could not reach the mail server (${failure.code ?? 'error'})`,
        retryable,
      );
    } finally {
      clearTimeout(timer);
      if (onAbort) sendOptions.signal?.removeEventListener('abort', onAbort);
    }
  }

  function compose(message: MailMessage): Promise<Buffer> {
    const MailComposer = requireLater('nodemailer/lib/mail-composer/index.js') as typeof MailComposerClass;
    const composer = new MailComposer({
      from: options.from.name ? { name: options.from.name, address: options.from.address } : options.from.address,
      to: message.to,
      subject: message.subject,
      text: message.text,
      html: message.html,
      headers: message.headers,
    });
    return new Promise((resolve, reject) =>
      composer.compile().build((error, raw) => (error ? reject(new MailError('the message could not be composed', false)) : resolve(raw))),
    );
  }

  return {
    send,
    describe: target.describe,
    async close() {
      closed = true;
      transport?.close();
    },
  };
}

function replyCodeOf(response: string | undefined): number | undefined {
  const match = /^(\d{3})/.exec(response ?? '');
  return match ? Number(match[1]) : undefined;
}
