import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { simpleParser, type AddressObject } from 'mailparser';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';

/**
 * A mail catcher: a real SMTP server on loopback that keeps what it receives in memory, parsed, for
 * the simulator's back office (`/__sim/`, `GET /__sim/mail`), the demo and the tests. Any
 * credentials (or none) are accepted, as a development catcher does; nothing is relayed anywhere.
 */

export interface CaughtMail {
  /** 1, 2, 3 … in arrival order. */
  id: number;
  /** ISO 8601 (UTC), from the catcher's clock. */
  receivedAt: string;
  /** The From header as written (e.g. `Agency alerts <alerts@agency.example>`). */
  from: string;
  /** The envelope's recipients (RCPT TO): who the message was delivered to. */
  to: string[];
  subject: string;
  text: string;
  html?: string;
  /** Every http(s) link in the message, the HTML's hrefs and the text's URLs, each once, in order. */
  links: string[];
}

export interface MailCatcherOptions {
  /** 127.0.0.1 unless given. */
  host?: string;
  /** 0 (any free port) unless given. */
  port?: number;
  /** The largest message taken (SIZE); a larger one is refused with 552. Default 1 MiB. */
  maxBytes?: number;
  /** Messages kept, the oldest dropped first. Default 300. */
  keep?: number;
  /** Tests: a reply code (e.g. 550) to refuse a recipient with; undefined takes it. */
  refuseRecipient?: (address: string) => number | undefined;
  now?: () => Date;
}

export interface MailCatcher {
  /** smtp://127.0.0.1:<port>: what SMTP_URL is set to. */
  url: string;
  port: number;
  /** What it holds, oldest first. */
  messages(): CaughtMail[];
  /** Resolves with the first message (held or arriving) the predicate takes; rejects after timeoutMs. */
  waitFor(predicate: (mail: CaughtMail) => boolean, timeoutMs: number): Promise<CaughtMail>;
  close(): Promise<void>;
}

export const MAIL_CATCHER_DEFAULTS = { maxBytes: 1024 * 1024, keep: 300 } as const;

export async function startMailCatcher(options: MailCatcherOptions = {}): Promise<MailCatcher> {
  const maxBytes = options.maxBytes ?? MAIL_CATCHER_DEFAULTS.maxBytes;
  const keep = options.keep ?? MAIL_CATCHER_DEFAULTS.keep;
  const now = options.now ?? (() => new Date());
  const held: CaughtMail[] = [];
  const waiters = new Set<(mail: CaughtMail) => void>();
  let nextId = 1;

  const server = new SMTPServer({
    // A catcher on loopback: no TLS to set up, any login (or none) taken.
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    allowInsecureAuth: true,
    disableReverseLookup: true,
    logger: false,
    size: maxBytes,
    banner: 'estate-embed CRM simulator mail catcher',
    socketTimeout: 30_000,
    closeTimeout: 1_000,
    onAuth(_auth, _session, callback) {
      callback(null, { user: 'anyone' });
    },
    onRcptTo(address, _session, callback) {
      const code = options.refuseRecipient?.(address.address);
      if (code === undefined) return callback();
      const error = Object.assign(new Error(`${code} recipient refused`), { responseCode: code });
      callback(error);
    },
    onData(stream: SMTPServerDataStream, session: SMTPServerSession, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (stream.sizeExceeded) {
          callback(Object.assign(new Error(`552 message larger than ${maxBytes} bytes`), { responseCode: 552 }));
          return;
        }
        simpleParser(Buffer.concat(chunks)).then(
          (parsed) => {
            const html = typeof parsed.html === 'string' ? parsed.html : undefined;
            const text = parsed.text ?? '';
            const mail: CaughtMail = {
              id: nextId++,
              receivedAt: now().toISOString(),
              from: addressText(parsed.from),
              to: session.envelope.rcptTo.map((recipient) => recipient.address),
              subject: parsed.subject ?? '',
              text,
              ...(html !== undefined ? { html } : {}),
              links: linksOf(text, html),
            };
            held.push(mail);
            if (held.length > keep) held.splice(0, held.length - keep);
            for (const waiter of waiters) waiter(mail);
            callback();
          },
          () => callback(Object.assign(new Error('554 message could not be read'), { responseCode: 554 })),
        );
      });
    },
  });
  // A client that drops its connection mid-message is the client's problem, not the catcher's.
  server.on('error', () => {});
  const host = options.host ?? '127.0.0.1';
  server.listen(options.port ?? 0, host);
  await once(server.server, 'listening');
  const { port } = server.server.address() as AddressInfo;

  return {
    url: `smtp://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    messages: () => held.map((mail) => ({ ...mail, to: [...mail.to], links: [...mail.links] })),
    waitFor(predicate, timeoutMs) {
      const found = held.find(predicate);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const waiter = (mail: CaughtMail) => {
          if (!predicate(mail)) return;
          clearTimeout(timer);
          waiters.delete(waiter);
          resolve(mail);
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`no matching mail within ${timeoutMs} ms (${held.length} held)`));
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function addressText(from: AddressObject | AddressObject[] | undefined): string {
  if (!from) return '';
  return (Array.isArray(from) ? from : [from])
    .flatMap((entry) => entry.value)
    .map((mailbox) => (mailbox.name ? `${mailbox.name} <${mailbox.address ?? ''}>` : (mailbox.address ?? '')))
    .join(', ');
}

/** The http(s) links of a message: the HTML's hrefs first (what a reader clicks), then URLs in the text. */
export function linksOf(text: string, html: string | undefined): string[] {
  const links: string[] = [];
  const add = (link: string) => {
    const clean = link.replace(/&amp;/g, '&').replace(/[).,;:!?'"]+$/, '');
    if (/^https?:\/\//i.test(clean) && !links.includes(clean)) links.push(clean);
  };
  for (const match of (html ?? '').matchAll(/href\s*=\s*["']([^"']+)["']/gi)) add(match[1]!);
  for (const match of text.matchAll(/https?:\/\/[^\s<>"]+/gi)) add(match[0]);
  return links;
}
