import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agencyConfig, readAgenciesFile } from '../../server/compose/agencies-file.ts';
import { collectAgenciesStatus, formatAgencies } from '../../server/ops/agencies-cli.ts';
import { ConfigError, loadConfig } from '../../server/runtime/config.ts';
import { createLogger } from '../../server/runtime/log.ts';
import { startMailCatcher, type MailCatcher } from '../support/smtp.ts';
import { startAgenciesRig, type AgenciesRig } from './rig.ts';

/**
 * Per agency in AGENCIES_FILE: `smtpUrl`, `mailFrom` and `alertConfirmation`, each falling back
 * to SMTP_URL, MAIL_FROM and SAVED_SEARCH_CONFIRMATION; the mailer built only with both a URL and
 * a From; what the saved searches are told; what the operator is shown (never the password).
 */
describe('agency mail settings', () => {
  let relayMail: MailCatcher;
  let ownMail: MailCatcher;
  let rig: AgenciesRig;
  const lines: string[] = [];

  beforeAll(async () => {
    relayMail = await startMailCatcher();
    ownMail = await startMailCatcher();
    const log = createLogger(
      { level: 'info' },
      new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    );
    rig = await startAgenciesRig({
      agencies: 3,
      log,
      env: {
        SMTP_URL: relayMail.url.replace('smtp://', 'smtp://relay:relay-secret-pw@'),
        MAIL_FROM: 'Relay alerts <alerts@relay.example>',
      },
      entry: (entry, index) =>
        index === 0
          ? // Its own server and a bare address (its name shown as the sender); an agent confirms.
            { ...entry, smtpUrl: ownMail.url.replace('smtp://', 'smtp://own:own-secret-pw@'), mailFrom: 'alerts@agency-a.example', alertConfirmation: 'agent' }
          : index === 1
            ? { ...entry, mailFrom: 'alerts@agency-b.example' }
            : entry,
    });
  }, 60_000);
  afterAll(async () => {
    await rig?.close();
    await relayMail?.close();
    await ownMail?.close();
  });

  it('AGENCIES_FILE reads the fields and refuses bad values by agency and field, never repeating the password', () => {
    const [first] = readAgenciesFile(rig.file);
    expect(first).toMatchObject({ smtpUrl: expect.stringMatching(/^smtp:\/\/own:/), mailFrom: 'alerts@agency-a.example', alertConfirmation: 'agent' });
    const original = rig.entries;
    rig.writeAgencies([
      { ...rig.entries[0]!, smtpUrl: 'https://own:hunter2secret@mail.example', mailFrom: 'not an address', alertConfirmation: 'sms' as 'agent' },
      ...rig.entries.slice(1),
    ]);
    let problems: string[] = [];
    try {
      readAgenciesFile(rig.file);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      problems = (error as ConfigError).problems;
    }
    rig.writeAgencies(original);
    expect(problems).toEqual([
      expect.stringMatching(/^AGENCIES_FILE: agencies\[0\] \("agency-a"\): smtpUrl: must start with smtp:\/\/ or smtps:\/\//),
      expect.stringMatching(/^AGENCIES_FILE: agencies\[0\] \("agency-a"\): mailFrom: must be an address/),
      expect.stringMatching(/^AGENCIES_FILE: agencies\[0\] \("agency-a"\): alertConfirmation: must be email .* or agent/),
    ]);
    expect(problems.join('\n')).not.toContain('hunter2secret');
  });

  it("agencyConfig: the entry's own settings win, the relay's fill in", () => {
    const base = loadConfig({ SMTP_URL: 'smtps://u:p@relay-mail.example', MAIL_FROM: 'alerts@relay.example', SAVED_SEARCH_CONFIRMATION: 'email' });
    const entry = { slug: 'x', name: 'X Realty', accessToken: 't', allowedOrigins: [], hosts: [] };
    expect(agencyConfig(base, entry, null)).toMatchObject({
      mail: { smtpUrl: 'smtps://u:p@relay-mail.example', from: 'alerts@relay.example' },
      savedSearches: { confirmation: 'email' },
    });
    expect(agencyConfig(base, { ...entry, smtpUrl: 'smtp://own.example', mailFrom: 'x@x.example', alertConfirmation: 'agent' }, null)).toMatchObject({
      mail: { smtpUrl: 'smtp://own.example', from: 'x@x.example' },
      savedSearches: { confirmation: 'agent' },
    });
  });

  it("each agency's mailer sends through its own server or the relay's, under its own From", async () => {
    const [a, b, c] = rig.relay.agencies!.list().map((running) => running.agency);
    expect(a!.mailer!.describe).toBe(`smtp://127.0.0.1:${ownMail.port}`);
    expect(b!.mailer!.describe).toBe(`smtp://127.0.0.1:${relayMail.port}`);
    expect(c!.mailer!.describe).toBe(`smtp://127.0.0.1:${relayMail.port}`);
    await a!.mailer!.send({ to: 'one@buyer.example', subject: 'from a', text: 'a' });
    await b!.mailer!.send({ to: 'two@buyer.example', subject: 'from b', text: 'b' });
    await c!.mailer!.send({ to: 'three@buyer.example', subject: 'from c', text: 'c' });
    // A bare mailFrom goes out under the agency's name; MAIL_FROM's own name is kept.
    expect((await ownMail.waitFor((mail) => mail.subject === 'from a', 10_000)).from).toBe(`${rig.entries[0]!.name} <alerts@agency-a.example>`);
    expect((await relayMail.waitFor((mail) => mail.subject === 'from b', 10_000)).from).toBe(`${rig.entries[1]!.name} <alerts@agency-b.example>`);
    expect((await relayMail.waitFor((mail) => mail.subject === 'from c', 10_000)).from).toBe('Relay alerts <alerts@relay.example>');
    expect(relayMail.messages().some((mail) => mail.subject === 'from a')).toBe(false);
  });

  it("the saved-search routes get each agency's confirmation mode", async () => {
    const post = (slug: string) =>
      rig.request(`/a/${slug}/api/v1/saved-searches`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          originalId: randomUUID(),
          fullName: 'Sam Buyer',
          email: 'sam@buyer.example',
          consent: true,
          elapsedMs: 60_000,
          search: { type: 'sale' },
        }),
      });
    const agent = await post('agency-a');
    const email = await post('agency-b');
    expect(agent.status).toBe(202);
    expect(agent.body.confirmation).toBe('agent');
    expect(email.status).toBe(202);
    expect(email.body.confirmation).toBe('email');
  });

  it('a reload with a new sender or mode composes the agency again, with a new mailer', async () => {
    const before = rig.relay.agencies!.list()[1]!.agency;
    const original = rig.entries;
    rig.writeAgencies(
      rig.entries.map((entry, index) => (index === 1 ? { ...entry, mailFrom: 'Agency B news <news@agency-b.example>', alertConfirmation: 'agent' } : entry)),
    );
    const report = await rig.relay.agencies!.reload();
    expect(report).toMatchObject({ ok: true, changed: ['agency-b'] });
    const after = rig.relay.agencies!.list()[1]!.agency;
    expect(after).not.toBe(before);
    expect(after.config.savedSearches.confirmation).toBe('agent');
    await after.mailer!.send({ to: 'four@buyer.example', subject: 'after reload', text: 'b' });
    expect((await relayMail.waitFor((mail) => mail.subject === 'after reload', 10_000)).from).toBe('Agency B news <news@agency-b.example>');
    rig.writeAgencies(original);
    expect(await rig.relay.agencies!.reload()).toMatchObject({ ok: true, changed: ['agency-b'] });
  });

  it('the startup log and `agencies` name where mail goes and the mode, never the credentials', () => {
    const log = lines.join('');
    expect(log).toMatch(new RegExp(`"agency":"agency-a".*"mail":"smtp://127.0.0.1:${ownMail.port}".*"alertConfirmation":"agent"`));
    expect(log).toMatch(new RegExp(`"agency":"agency-b".*"mail":"smtp://127.0.0.1:${relayMail.port}".*"alertConfirmation":"email"`));
    expect(log).not.toMatch(/relay-secret-pw|own-secret-pw/);
    const status = collectAgenciesStatus(rig.file, rig.dataDir, 10_000, { settings: rig.relay.config });
    expect(status.agencies.map((row) => row.mail)).toEqual([
      { smtp: `smtp://127.0.0.1:${ownMail.port}`, from: 'alerts@agency-a.example', alertConfirmation: 'agent' },
      { smtp: `smtp://127.0.0.1:${relayMail.port}`, from: 'alerts@agency-b.example', alertConfirmation: 'email' },
      { smtp: `smtp://127.0.0.1:${relayMail.port}`, from: 'alerts@relay.example', alertConfirmation: 'email' },
    ]);
    const table = formatAgencies(status);
    expect(table).toContain(`Alerts of agency-a: confirmed by an agent (mail: smtp://127.0.0.1:${ownMail.port})`);
    expect(table).toContain(`Alerts of agency-b: confirmed by e-mail (smtp://127.0.0.1:${relayMail.port})`);
    expect(`${JSON.stringify(status)}${table}`).not.toMatch(/secret-pw/);
  });
});

describe('relay status: mail', () => {
  it('names the server (scheme, host, port) and the mode, never the password; says when alerts are not offered', async () => {
    const { formatMail, mailStatus } = await import('../../server/ops/status.ts');
    const set = mailStatus(loadConfig({ SMTP_URL: 'smtps://relay:hunter2secret@mail.example', MAIL_FROM: 'Alerts <alerts@agency.example>' }));
    expect(set).toEqual({ smtp: 'smtps://mail.example:465', from: 'alerts@agency.example', alertConfirmation: 'email' });
    expect(formatMail(set)).toMatch(/^Mail +smtps:\/\/mail\.example:465 from alerts@agency\.example; saved searches confirmed by e-mail/);
    expect(JSON.stringify(set) + formatMail(set)).not.toContain('hunter2secret');
    // A URL without a From sends nothing: no mailer is built.
    expect(formatMail(mailStatus(loadConfig({ SMTP_URL: 'smtps://mail.example' })))).toMatch(/not configured .*alerts are not offered/);
    expect(formatMail(mailStatus(loadConfig({ SAVED_SEARCH_CONFIRMATION: 'agent' })))).toMatch(/confirmed by an agent/);
  });
});
