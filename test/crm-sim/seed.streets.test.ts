// The simulator's addresses read as real ones to an Australian agency (issue #33): a listing's
// street belongs to its own suburb ("Glebe Point Road, Hawthorn" was drawn before).
import { describe, expect, it } from 'vitest';
import { generateSeed } from '../../crm-sim/seed.ts';
import { agencyIdentity, GROWTH_STREETS, RURAL_ROADS_BY_SUBURB, STREETS_BY_SUBURB, SUBURBS } from '../../crm-sim/seed-data.ts';

const NOW = Date.UTC(2026, 5, 15, 3);

describe('seeded addresses', () => {
  it('names a street of every suburb the seed lists in', () => {
    const missing = SUBURBS.filter((suburb) => !STREETS_BY_SUBURB[suburb.name]?.length).map((suburb) => suburb.name);
    expect(missing).toEqual([]);
    const rural = SUBURBS.filter((suburb) => suburb.kind === 'rural' && !RURAL_ROADS_BY_SUBURB[suburb.name]?.length).map((suburb) => suburb.name);
    expect(rural).toEqual([]);
  });

  it('puts each listing on a street of its own suburb, for the demo agency and another one on the key', () => {
    for (const options of [{ seed: 42 }, { seed: 7, idOffset: 1_000_000, agency: agencyIdentity(1) }]) {
      const { listings } = generateSeed({ listings: 300, now: NOW, ...options });
      let checked = 0;
      for (const listing of listings) {
        const address = listing.fields.address as { street: string; streetNumber: string; suburb: { name: string } };
        const suburb = SUBURBS.find((info) => info.name.toUpperCase() === address.suburb.name.toUpperCase());
        expect(suburb, address.suburb.name).toBeDefined();
        const own = [...(STREETS_BY_SUBURB[suburb!.name] ?? []), ...(RURAL_ROADS_BY_SUBURB[suburb!.name] ?? [])];
        // New estates' land is on their own new streets, named for the estate, not the old suburb.
        const allowed = address.streetNumber.startsWith('Lot ') ? GROWTH_STREETS : own;
        expect(allowed, `${address.street}, ${suburb!.name}`).toContain(address.street);
        checked += 1;
      }
      expect(checked).toBe(300);
    }
  });
});
