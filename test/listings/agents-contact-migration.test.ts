// Migration 220: an agent's row keeps both ways of reaching them and whether they have a public
// role. A cache filled before the upgrade never shows an agent's own mobile or e-mail by default:
// their phone waits for the full sweep the migration forces, which reads the staff again.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ListingCache } from '../../server/listings/cache.ts';
import { publicAgentSchema } from '../../server/listings/public-schema.ts';
import { migrations } from '../../server/store/migrations.ts';
import { openStore } from '../../server/store/store.ts';
import { tablesOf } from '../../server/store/tables.ts';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe('migration 220: agents keep both contacts', () => {
  it('rewrites an agent row to the new shape (e-mail kept, phone unknown until the forced full sweep), public_role 0', () => {
    const dir = mkdtempSync(join(tmpdir(), 'estate-agents-contact-'));
    dirs.push(dir);
    const before = openStore(
      dir,
      migrations.filter((migration) => migration.id < '220'),
    );
    const old = { id: 42, name: 'Ann Agent', position: 'Director', phone: '0491 570 006', email: 'ann@agency.example' };
    tablesOf(before)
      .prepare('INSERT INTO agents (id, show_on_web, lead_destination, public_json, synced_at) VALUES (42, 1, \'{"userId":42}\', ?, 0)')
      .run(JSON.stringify(old));
    tablesOf(before).prepare("INSERT INTO listing_sync_state (key, value) VALUES ('lastFullSweepAt', '1')").run();
    before.close();

    const after = openStore(dir);
    try {
      const cache = new ListingCache(after);
      const [agent] = cache.visibleAgents([42]);
      expect(agent).toEqual({
        id: 42,
        publicRole: false,
        fields: { id: 42, name: 'Ann Agent', position: 'Director', officePhone: null, mobile: null, email: 'ann@agency.example', profile: null },
      });
      // The shape relays on one database check copied rows against.
      expect(publicAgentSchema.safeParse(agent!.fields).success).toBe(true);
      expect(cache.readState().lastFullSweepAt).toBeNull();
      expect(cache.agentTarget(42)).toEqual({ destination: '{"userId":42}' });
    } finally {
      after.close();
    }
  });
});
