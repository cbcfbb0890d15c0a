import { once } from 'node:events';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MailError } from '../../server/mail/mailer.ts';
import { createSmtpMailer, SMTP_DEFAULTS } from '../../server/mail/smtp-mailer.ts';
import { createLogger } from '../../server/runtime/log.ts';
import { smtpServerForFile } from '../support/smtp.ts';

const smtp = smtpServerForFile({ refuseRecipient: (address) => (address.endsWith('@refused.example') ? 550 : undefined) });

/** Every log line the mailer writes, as text. */
function capturedLog(): { log: ReturnType<typeof createLogger>; text: () => string } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { log: createLogger({ level: 'debug' }, destination), text: () => lines.join('') };
}

/** A TCP server that takes connections and never says a word (no 220 greeting); counts them. */
let silent: Server;
let silentPort = 0;
let silentConnections = 0;
const silentSockets = new Set<Socket>();
beforeAll(async () => {
  silent = createServer((socket) => {
    silentConnections++;
    silentSockets.add(socket);
    socket.on('error', () => {});
  });
  silent.listen(0, '127.0.0.1');
  await once(silent, 'listening');
  silentPort = (silent.address() as AddressInfo).port;
});
afterAll(async () => {
  for (const socket of silentSockets) socket.destroy();
  await new Promise((resolve) => silent.close(resolve));
});

describe('SMTP mailer', () => {
  it('delivers to a real SMTP server with the configured From, and describes the server without credentials', async () => {
    const { log, text } = capturedLog();
    const url = smtp.current.url.replace('smtp://', 'smtp://relay-user:s3cret-pass@');
    const mailer = createSmtpMailer({ url, from: { name: 'Harbour Realty', address: 'alerts@harbour.example' }, log });
    try {
      expect(mailer.describe).toBe(`smtp://127.0.0.1:${smtp.current.port}`);
      expect(mailer.describe).not.toMatch(/relay-user|s3cret/);
      await mailer.send({
        to: 'visitor@buyer.example',
        subject: 'Confirm your alerts for Manly',
        text: 'Follow https://relay.example/confirm/abc to confirm.',
        html: '<p><a href="https://relay.example/confirm/abc">Confirm</a></p>',
      });
      const mail = await smtp.current.waitFor((caught) => caught.subject === 'Confirm your alerts for Manly', 10_000);
      expect(mail.from).toBe('Harbour Realty <alerts@harbour.example>');
      expect(mail.to).toEqual(['visitor@buyer.example']);
      expect(mail.text).toContain('Follow https://relay.example/confirm/abc');
      expect(mail.links).toEqual(['https://relay.example/confirm/abc']);
      // The log names the reply code, never the address, subject, body or password.
      expect(text()).toMatch(/"replyCode":250/);
      expect(text()).not.toMatch(/visitor@buyer|Manly|confirm\/abc|s3cret/);
    } finally {
      await mailer.close();
    }
  });

  it('takes a bare MAIL_FROM address as the From', async () => {
    const mailer = createSmtpMailer({ url: smtp.current.url, from: { address: 'bare@agency.example' }, log: capturedLog().log });
    await mailer.send({ to: 'bare-test@buyer.example', subject: 'Bare from', text: 'x' });
    const mail = await smtp.current.waitFor((caught) => caught.subject === 'Bare from', 10_000);
    expect(mail.from).toBe('bare@agency.example');
    await mailer.close();
  });

  it('a 5xx refusal of the recipient is a MailError that is not retryable, logged by its code only', async () => {
    const { log, text } = capturedLog();
    const mailer = createSmtpMailer({ url: smtp.current.url, from: { address: 'alerts@agency.example' }, log });
    const error = await mailer.send({ to: 'someone@refused.example', subject: 'Refused subject', text: 'body' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MailError);
    expect((error as MailError).retryable).toBe(false);
    expect((error as MailError).message).toMatch(/550/);
    expect(text()).toMatch(/"replyCode":550/);
    expect(text()).not.toMatch(/someone@refused|Refused subject/);
    await mailer.close();
  });

  it('a server that takes the connection and never greets is a retryable MailError within the greeting timeout', async () => {
    const mailer = createSmtpMailer({
      url: `smtp://127.0.0.1:${silentPort}`,
      from: { address: 'a@agency.example' },
      log: capturedLog().log,
      greetingTimeoutMs: 1_000,
    });
    const started = performance.now();
    const error = await mailer.send({ to: 'x@buyer.example', subject: 's', text: 't' }).catch((caught: unknown) => caught);
    const elapsed = performance.now() - started;
    expect(error).toBeInstanceOf(MailError);
    expect((error as MailError).retryable).toBe(true);
    expect(elapsed).toBeGreaterThanOrEqual(900);
    // A busy machine may be slow, never by nodemailer's 30 s default.
    expect(elapsed).toBeLessThan(15_000);
    await mailer.close();
  });

  it('its default timeouts are seconds, not minutes', () => {
    for (const value of [SMTP_DEFAULTS.connectionTimeoutMs, SMTP_DEFAULTS.greetingTimeoutMs, SMTP_DEFAULTS.socketTimeoutMs, SMTP_DEFAULTS.sendTimeoutMs])
      expect(value).toBeLessThanOrEqual(60_000);
  });

  it('a connection refused is a retryable MailError', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const mailer = createSmtpMailer({ url: `smtp://127.0.0.1:${port}`, from: { address: 'a@agency.example' }, log: capturedLog().log });
    const error = await mailer.send({ to: 'x@buyer.example', subject: 's', text: 't' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MailError);
    expect((error as MailError).retryable).toBe(true);
    await mailer.close();
  });

  it('refuses an oversized message before connecting', async () => {
    const before = silentConnections;
    const mailer = createSmtpMailer({
      url: `smtp://127.0.0.1:${silentPort}`,
      from: { address: 'a@agency.example' },
      log: capturedLog().log,
      maxMessageBytes: 4_000,
    });
    const error = await mailer.send({ to: 'x@buyer.example', subject: 'big', text: 'x'.repeat(10_000) }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MailError);
    expect((error as MailError).retryable).toBe(false);
    expect((error as MailError).message).toMatch(/bytes/);
    expect(silentConnections).toBe(before);
    await mailer.close();
  });

  it('refuses a URL that is not smtp:// or smtps://, without repeating it', () => {
    expect(() => createSmtpMailer({ url: 'https://user:pw@mail.example', from: { address: 'a@agency.example' }, log: capturedLog().log })).toThrow(
      /smtp:\/\/ or smtps:\/\//,
    );
    try {
      createSmtpMailer({ url: 'http://user:pw@mail.example', from: { address: 'a@agency.example' }, log: capturedLog().log });
    } catch (error) {
      expect((error as Error).message).not.toContain('pw');
    }
  });

  it('smtps:// is TLS from the first byte on 465 by default', () => {
    const mailer = createSmtpMailer({ url: 'smtps://u:p@mail.example', from: { address: 'a@agency.example' }, log: capturedLog().log });
    expect(mailer.describe).toBe('smtps://mail.example:465');
    void mailer.close();
  });
});
