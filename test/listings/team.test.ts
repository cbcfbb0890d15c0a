// The rules over the agency's people (server/listings/team.ts): who faces the public, in what
// order, how they are reached. The routes and pages that use them: test/pages/agent-pages.test.ts.
import { describe, expect, it } from 'vitest';
import { TeamRules } from '../../server/listings/team.ts';
import type { CachedAgent } from '../../server/listings/cache.ts';

const agent = (id: number, name: string, publicRole = false): CachedAgent => ({
  id,
  publicRole,
  fields: { id, name, position: null, officePhone: '(03) 5550 0100', mobile: '0491 570 006', email: `${id}@agency.example`, profile: null },
});

describe('the team rules', () => {
  it('a staff member shown on the web faces the public with listings (current or past) or a public role, unless hidden', () => {
    const rules = new TeamRules({ order: [], hidden: [3], directContact: false });
    expect(rules.facesPublic(agent(1, 'A'), { current: 0, all: 2 })).toBe(true);
    expect(rules.facesPublic(agent(1, 'A', true), undefined)).toBe(true);
    // Back office: no listings and no public role.
    expect(rules.facesPublic(agent(2, 'B'), undefined)).toBe(false);
    expect(rules.facesPublic(agent(2, 'B'), { current: 0, all: 0 })).toBe(false);
    expect(rules.facesPublic(agent(3, 'C', true), { current: 4, all: 4 })).toBe(false);
  });

  it("orders TEAM_ORDER's ids first, as listed, then the rest by name", () => {
    const rules = new TeamRules({ order: [9, 4], hidden: [], directContact: false });
    const sorted = rules.sort([agent(1, 'zoe'), agent(4, 'Yan'), agent(2, 'Ádám'), agent(9, 'Xu'), agent(3, 'bea')].map((each) => each.fields));
    expect(sorted.map((each) => each.id)).toEqual([9, 4, 2, 3, 1]);
  });

  it('shows the office line and no e-mail by default; their own e-mail and mobile with direct contact, the office line when the mobile is hidden', () => {
    const fields = agent(1, 'A').fields;
    expect(new TeamRules({ order: [], hidden: [], directContact: false }).contact(fields)).toEqual({ phone: '(03) 5550 0100', email: null });
    const direct = new TeamRules({ order: [], hidden: [], directContact: true });
    expect(direct.contact(fields)).toEqual({ phone: '0491 570 006', email: '1@agency.example' });
    expect(direct.contact({ ...fields, mobile: null })).toEqual({ phone: '(03) 5550 0100', email: '1@agency.example' });
  });
});
