import request from 'supertest';
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../server/cli.ts';
import { redactedPaths } from '../../server/runtime/log.ts';
import { simulatedCrm, validEnquiry } from './support.ts';
import { savedSearchHarness, validSavedSearch } from '../saved-searches/support.ts';

// A CRM refusal may echo what the visitor typed (a 400's message quoting the suburb, the message,
// the name). The relay keeps the refusal by its code and the field it names: neither its log (pino
// to a stream, as in production, with the production redaction) nor the stored error the CLI
// prints holds any of the input. The simulator's `echoField` fault answers as such a CRM does.

const crm = simulatedCrm({ listings: 6, seed: 11 });

/** A relay logger whose lines are kept, at debug (everything a verbose operator would see). */
function capturedLog() {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      chunks.push(String(chunk));
      callback();
    },
  });
  const log = pino({ level: 'debug', redact: { paths: redactedPaths, censor: '[redacted]' } }, stream);
  return { log, text: () => chunks.join('') };
}

async function cliOutput(env: Record<string, string>, args: string[]): Promise<string> {
  const out: string[] = [];
  expect(await runCli(args, { env, out: (text) => out.push(text), err: (text) => out.push(text) })).toBe(0);
  return out.join('\n');
}

describe('a CRM refusal that echoes the input', () => {
  it('an enquiry: dead-lettered with the code and field, and the log, the stored error and the CLI hold none of what was typed', async () => {
    const captured = capturedLog();
    const harness = await crm.harness({ log: captured.log, settings: { retryBaseMs: 1_000, reconcileDelayMs: 0 } });
    const page = await harness.crm.listProperties({ class: 'residential', saleOrLease: 'sale', available: true, pageSize: 5 });
    const listing = page.items.find((item) => item.saleLifeId != null)!;
    const typed = { fullName: 'Quentin Zebulon', email: 'quentin.zebulon@example.com', message: 'Ring me about the Marigold Lane garden, please' };
    const body = validEnquiry({ listingId: listing.id, ...typed });
    await request(harness.app).post('/api/v1/enquiries').send(body).expect(202);
    crm.sim.state.faults.set([{ match: 'POST /enquiries', errorRate: 1, errorStatus: 400, echoField: 'body', times: 1 }]);
    await harness.service.worker.drain();

    const entry = (await harness.service.outbox.get(body.originalId))!;
    expect(entry.status).toBe('dead');
    expect(entry.lastError).toBe('CRM 400 INVALID_DATA field body');
    const listed = await cliOutput(harness.env, ['outbox', 'list']);
    expect(listed).toContain(body.originalId);
    const everything = `${captured.text()}\n${entry.lastError}\n${listed}`;
    expect(captured.text()).toContain('INVALID_DATA');
    for (const words of [typed.message, 'Marigold', typed.fullName, 'Zebulon', typed.email]) expect(everything).not.toContain(words);
  });

  it('a saved search: dead-lettered with the code and field, and the log and the stored error hold none of what was chosen or typed', async () => {
    const captured = capturedLog();
    const { baseUrl, apiKey, accessToken } = crm.sim;
    const harness = await savedSearchHarness({ crm: { baseUrl, apiKey, accessToken }, log: captured.log });
    try {
      const body = validSavedSearch({ fullName: 'Ottoline Quist', email: 'ottoline.quist@example.com', search: { type: 'sale', suburb: 'Kew', minBeds: 3 } });
      await request(harness.app).post('/api/v1/saved-searches').send(body).expect(202);
      crm.sim.state.faults.set([
        { match: 'POST /contacts', errorRate: 1, errorStatus: 400, echoField: 'firstName', times: 1 },
        { match: 'POST /contacts/*/requirements', errorRate: 1, errorStatus: 400, echoField: 'suburbs', times: 1 },
      ]);
      for (let round = 0; round < 10 && (await harness.service.store.get(body.originalId))?.status !== 'dead'; round++) {
        await harness.deliver();
      }
      const row = (await harness.service.store.get(body.originalId))!;
      expect(row.status).toBe('dead');
      expect(row.lastError).toMatch(/^CRM 400 INVALID_DATA field (firstName|suburbs)$/);
      const everything = `${captured.text()}\n${row.lastError}`;
      expect(captured.text()).toContain('INVALID_DATA');
      for (const words of ['Ottoline', 'Quist', body.email, '"Kew"']) expect(everything).not.toContain(words);
    } finally {
      await harness.close();
    }
  });
});
