// The deployment files in deploy/ agree with the relay: the nginx snippet forwards what the relay
// reads, the unit's TRUST_PROXY makes per-client limits count real visitors behind that proxy,
// and the unit starts, reloads and stores what the code expects.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { projectRoot } from '../../server/http/app.ts';
import { WEBHOOK_MAX_BYTES } from '../../server/listings/webhook.ts';
import { SYNC_SIGNAL } from '../../server/ops/sync-request.ts';
import { startTestRelay, type TestRelay } from '../support/relay-fixture.ts';

const unit = readFileSync(join(projectRoot, 'deploy', 'estate-embed-relay.service'), 'utf8');
const nginx = readFileSync(join(projectRoot, 'deploy', 'nginx.conf'), 'utf8');
const unitEnv = Object.fromEntries([...unit.matchAll(/^Environment=([A-Z_]+)=(.*)$/gm)].map((match) => [match[1]!, match[2]!]));

let relay: TestRelay | undefined;
afterEach(async () => {
  await relay?.close();
  relay = undefined;
});

/** One enquiry as it arrives through nginx: from 127.0.0.1, the visitor's address in X-Forwarded-For. */
function enquiryVia(client: string): Promise<Response> {
  return fetch(`${relay!.url}/api/v1/enquiries`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': client, 'X-Forwarded-Proto': 'https' },
    body: JSON.stringify({ originalId: randomUUID(), agentId: 1, fullName: 'Ana Silva', email: 'ana@example.com', message: 'Hello', elapsedMs: 30_000 }),
  });
}

describe('deploy/', () => {
  it('nginx forwards the client address, scheme and host to the relay the unit starts', () => {
    expect(nginx).toContain(`proxy_pass http://${unitEnv.HOST}:${unitEnv.PORT};`);
    expect(nginx).toMatch(/proxy_set_header X-Forwarded-For \$remote_addr;/);
    expect(nginx).toMatch(/proxy_set_header X-Forwarded-Proto \$scheme;/);
    expect(nginx).toMatch(/proxy_set_header Host \$host;/);
  });

  it('nginx lets the CRM webhook through at the size the relay accepts (the CRM sends whole records)', () => {
    const block = /location = \/hooks\/crm \{([^}]*)\}/.exec(nginx)?.[1] ?? '';
    const limit = /client_max_body_size (\d+)k;/.exec(block)?.[1];
    expect(Number(limit) * 1024).toBe(WEBHOOK_MAX_BYTES);
    expect(block).toContain(`proxy_pass http://${unitEnv.HOST}:${unitEnv.PORT};`);
  });

  it("with the unit's TRUST_PROXY, the per-client enquiry limit counts each visitor, not the proxy", async () => {
    expect(unitEnv.TRUST_PROXY).toBe('loopback');
    relay = await startTestRelay({ TRUST_PROXY: unitEnv.TRUST_PROXY!, ENQUIRY_RATE_LIMIT_PER_MINUTE: '2' }, { workers: false });
    const first = [await enquiryVia('203.0.113.7'), await enquiryVia('203.0.113.7'), await enquiryVia('203.0.113.7')].map((response) => response.status);
    expect(first.slice(0, 2).every((status) => status !== 429)).toBe(true);
    expect(first[2]).toBe(429);
    // Another visitor through the same proxy still gets through.
    expect((await enquiryVia('198.51.100.23')).status).not.toBe(429);
  });

  it('without it, every visitor behind the proxy shares one limit (why the setting matters)', async () => {
    relay = await startTestRelay({ TRUST_PROXY: 'false', ENQUIRY_RATE_LIMIT_PER_MINUTE: '2' }, { workers: false });
    await enquiryVia('203.0.113.7');
    await enquiryVia('203.0.113.7');
    expect((await enquiryVia('198.51.100.23')).status).toBe(429);
  });

  it('the unit runs the relay entry point, keeps the store writable, and reloads with the sync signal', () => {
    // The unit runs the build (plain node, no tsx): the file `npm run build` makes from server/main.ts.
    const [, entry] = /^ExecStart=\/usr\/bin\/node --enable-source-maps (\S+)$/m.exec(unit) ?? [];
    expect(entry).toBe('dist/server/main.js');
    expect(existsSync(join(projectRoot, 'server', 'main.ts'))).toBe(true);
    expect(unit).not.toContain('tsx');
    expect(unit).toMatch(new RegExp(`^ReadWritePaths=${unitEnv.DATA_DIR}$`, 'm'));
    expect(unit).toContain(`ExecReload=/bin/kill -${SYNC_SIGNAL.replace(/^SIG/, '')} $MAINPID`);
    expect(unit).toMatch(/^EnvironmentFile=\/etc\/estate-embed\/relay\.env$/m);
  });

  it('the unit creates DATA_DIR owner-only, as the relay wants it (else it tightens it and warns at every start)', () => {
    expect(unit).toMatch(/^StateDirectoryMode=0700$/m);
    expect(unit).toMatch(/^UMask=0077$/m);
  });
});
