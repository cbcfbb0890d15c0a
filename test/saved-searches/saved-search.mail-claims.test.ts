import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../crm-sim/simulator.ts';
import type { Mailer, MailMessage } from '../../server/mail/mailer.ts';
import { createConfirmationWorker, MAIL_LEASE_MS, type ConfirmationWorker } from '../../server/saved-searches/confirmation.ts';
import { SavedSearchStore } from '../../server/saved-searches/store.ts';
import { silentLogger } from '../../server/runtime/log.ts';
import { clockAsDatabaseClock } from '../../server/store/shared-database.ts';
import { storeVariants } from '../support/store-variants.ts';
import { runningClock } from '../support/test-clock.ts';
import { catcherMailer, savedSearchHarness, validSavedSearch, type SavedSearchHarness } from './support.ts';

// Issue 33: a confirmation e-mail claimed by a relay that was killed mid-send is not held for the
// whole claim. The relay started again takes its own dead claims back at once (same owner: its
// previous process); another relay takes over a dead relay's claim once its short lease lapses;
// a relay still sending keeps its claim alive (the heartbeat), so the e-mail goes once. Both stores.

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator({ listings: 4, seed: 33 });
});
afterAll(async () => {
  await sim?.close();
});

/** A mailer whose sends never finish: the process sending was killed while the SMTP exchange ran. */
function killedMidSend(): Mailer & { started: () => number } {
  let started = 0;
  return {
    describe: 'smtp://killed.test',
    send: () => {
      started++;
      return new Promise<void>(() => {});
    },
    close: async () => {},
    started: () => started,
  };
}

/** A mailer that takes `ms` for each message, then hands it to `inner`. */
function slowMailer(inner: Mailer, ms: number): Mailer {
  return {
    describe: inner.describe,
    send: async (message: MailMessage) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      await inner.send(message);
    },
    close: () => inner.close(),
  };
}

const waitUntil = async (check: () => Promise<boolean> | boolean, what: string, ms = 10_000) => {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

for (const variant of storeVariants()) {
  describe.skipIf(variant.skipped)(`saved-search confirmation e-mail claims on ${variant.name}`, () => {
    const harnesses: SavedSearchHarness[] = [];
    const workers: ConfirmationWorker[] = [];
    let offset = 0;
    const base = runningClock();
    const clock = () => base() + offset;
    afterEach(async () => {
      workers.splice(0);
      await Promise.all(harnesses.splice(0).map((made) => made.close()));
      sim.state.reset();
      offset = 0;
    });

    const harness = async () => {
      const made = await savedSearchHarness({
        crm: { baseUrl: sim.baseUrl, apiKey: sim.apiKey, accessToken: sim.accessToken },
        postgresServer: variant.postgresServer,
        now: clock,
        owner: 'relay-a',
      });
      harnesses.push(made);
      return made;
    };
    /** A confirmation worker of a relay process on the harness's store: `owner` names the relay (the same across its restarts). */
    const relayProcess = (made: SavedSearchHarness, owner: string, mailer: Mailer, mailLeaseMs?: number) => {
      const worker = createConfirmationWorker({
        store: new SavedSearchStore(made.store, { owner, clock: clockAsDatabaseClock(clock) }),
        metrics: made.service.metrics,
        mailer,
        log: silentLogger,
        now: clock,
        agencyName: 'Harness Realty',
        relayBase: () => 'http://relay.test',
        timeZone: 'Australia/Melbourne',
        language: 'en-AU',
        ...(mailLeaseMs === undefined ? {} : { mailLeaseMs }),
      });
      workers.push(worker);
      return worker;
    };
    const mailsTo = (made: SavedSearchHarness, address: string) => made.mail.messages().filter((message) => message.to.includes(address));
    const post = async (made: SavedSearchHarness, email: string) => {
      const body = validSavedSearch({ email });
      const response = await request(made.app).post('/api/v1/saved-searches').send(body);
      expect(response.status, JSON.stringify(response.body)).toBe(202);
      return body.originalId;
    };
    const claimedBy = async (made: SavedSearchHarness, originalId: string) => {
      const entry = await made.service.store.get(originalId);
      return entry?.mailAttempts === 1 && entry.mailSentAt === null;
    };

    it('a relay started again sends at once the e-mail its killed process had claimed, without waiting out the claim', async () => {
      const made = await harness();
      const originalId = await post(made, 'restarted@example.com');
      const killed = killedMidSend();
      void relayProcess(made, 'relay-a', killed).drain();
      await waitUntil(() => killed.started() === 1 && claimedBy(made, originalId), 'the first process to claim the e-mail and start sending');
      // The process is gone (SIGKILL); the same relay starts again on the same store, its clock not moved on.
      const restarted = relayProcess(made, 'relay-a', catcherMailer(made.mail));
      await restarted.drain();
      expect(mailsTo(made, 'restarted@example.com')).toHaveLength(1);
      expect((await made.service.store.get(originalId))!.mailSentAt).not.toBeNull();
    });

    it("another relay takes over a dead relay's claim once its short lease lapses, not minutes later", async () => {
      const made = await harness();
      const originalId = await post(made, 'taken-over@example.com');
      const killed = killedMidSend();
      void relayProcess(made, 'relay-a', killed).drain();
      await waitUntil(() => killed.started() === 1 && claimedBy(made, originalId), 'relay A to claim the e-mail');
      const other = relayProcess(made, 'relay-b', catcherMailer(made.mail));
      // Relay A's claim holds while it may be sending: nothing from relay B.
      await other.drain();
      expect(mailsTo(made, 'taken-over@example.com')).toHaveLength(0);
      // Relay A is dead, so nothing renews its claim: relay B sends once the lease is over.
      offset += MAIL_LEASE_MS + 1_000;
      await other.drain();
      expect(mailsTo(made, 'taken-over@example.com')).toHaveLength(1);
      expect(MAIL_LEASE_MS).toBeLessThanOrEqual(30_000);
    });

    it('a relay still sending renews its claims while it lives, so another relay never sends the same e-mail meanwhile', async () => {
      const made = await harness();
      const originalId = await post(made, 'slow@example.com');
      const leaseMs = 1_000;
      // Each message takes three leases to send: without the heartbeat the claim lapses under relay A.
      const sending = relayProcess(made, 'relay-a', slowMailer(catcherMailer(made.mail), leaseMs * 3), leaseMs).drain();
      await waitUntil(() => claimedBy(made, originalId), 'relay A to claim the e-mail');
      const other = relayProcess(made, 'relay-b', catcherMailer(made.mail), leaseMs);
      const until = Date.now() + leaseMs * 3;
      while (Date.now() < until) {
        await other.drain();
        await new Promise((resolve) => setTimeout(resolve, leaseMs / 5));
      }
      await sending;
      await other.drain();
      expect(mailsTo(made, 'slow@example.com')).toHaveLength(1);
    });
  });
}
