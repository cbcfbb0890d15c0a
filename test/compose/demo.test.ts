// Demo mode with SIM_AGENCIES=3: the demo site shows the simulator's first account at the root;
// the other two are agencies under /a/<slug>/ (slugs from their names), each with its own listings
// and the webhooks of its account, beside the root on the same key and photo folder.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signCrmWebhook, WEBHOOK_SIGNATURE_HEADER } from '../../server/crm/events.ts';
import { tablesOf } from '../../server/store/tables.ts';
import { startTestRelay, type TestRelay } from '../support/relay-fixture.ts';
import { until } from './rig.ts';

let relay: TestRelay;
// A stand-in for the built widget bundle, so that /widget.js has something of its own to serve.
const widgetDir = mkdtempSync(join(tmpdir(), 'estate-demo-widget-'));
const WIDGET_SOURCE = 'export const demoWidget = 1;\n';
const saved = process.env.SIM_AGENCIES;

beforeAll(async () => {
  process.env.SIM_AGENCIES = '3';
  writeFileSync(join(widgetDir, 'widget.js'), WIDGET_SOURCE);
  relay = await startTestRelay({ SIM_LISTINGS: '6', PHOTO_WIDTHS: '240' }, { workers: false, app: { widgetDir } });
}, 60_000);
afterAll(async () => {
  await relay?.close();
  rmSync(widgetDir, { recursive: true, force: true });
  if (saved === undefined) delete process.env.SIM_AGENCIES;
  else process.env.SIM_AGENCIES = saved;
});

describe('demo mode with SIM_AGENCIES=3', () => {
  it('serves the first account at the root and the other two under /a/<slug>/, each its own listings', async () => {
    const accounts = relay.simulator!.accounts();
    const others = relay.agencies!.list();
    expect(others.map((running) => running.entry.name)).toEqual([accounts[1]!.name, accounts[2]!.name]);
    for (const running of others) expect(running.entry.slug).toMatch(/^[a-z0-9-]{1,40}$/);

    expect((await relay.listings.sync.run('full')).error).toBeUndefined();
    for (const running of others) expect((await running.agency.listings.sync.run('full')).error).toBeUndefined();
    const idsAt = async (prefix: string) =>
      ((await (await fetch(`${relay.url}${prefix}/api/v1/listings?pageSize=100`)).json()) as { items: Array<{ id: number }> }).items.map((item) => item.id);
    const root = await idsAt('');
    const second = await idsAt(`/a/${others[0]!.entry.slug}`);
    const third = await idsAt(`/a/${others[1]!.entry.slug}`);
    for (const list of [root, second, third]) expect(list.length).toBeGreaterThan(0);
    expect(root.filter((id) => second.includes(id) || third.includes(id))).toEqual([]);
    expect(second.filter((id) => third.includes(id))).toEqual([]);
    // The same loader bundle under each agency's path.
    const widget = await fetch(`${relay.url}/a/${others[0]!.entry.slug}/widget.js`);
    expect([200, 503]).toContain(widget.status);
    expect(widget.status).toBe(200);
    expect(await widget.text()).toBe(WIDGET_SOURCE);
  });

  it('the one webhook URL routes an event of the second account to its agency, not the root', async () => {
    const [second] = relay.agencies!.list();
    relay.listings.account.start();
    second!.agency.listings.account.start();
    await until(() => relay.listings.account.id !== undefined && second!.agency.listings.account.id !== undefined, Boolean);
    const accountId = Number(second!.agency.listings.account.id);
    const body = JSON.stringify({ event: 'property.update', data: { id: 1 }, accountid: accountId, timestamp: new Date().toISOString() });
    const answer = await fetch(`${relay.url}/hooks/crm`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [WEBHOOK_SIGNATURE_HEADER]: signCrmWebhook(relay.config.crm.apiKey!, Date.now(), body) },
      body,
    });
    expect(answer.status).toBe(202);
    const queued = (store: Parameters<typeof tablesOf>[0]) => tablesOf(store).prepare('SELECT COUNT(*) FROM crm_change_queue').pluck().get() as number;
    expect(queued(second!.agency.store)).toBe(1);
    expect(queued(relay.store)).toBe(0);
  });
});
