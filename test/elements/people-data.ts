import type { AgentProfile, Office, Team, TeamMember } from '../../contract/relay-api.ts';
import { addressSlug } from '../../contract/slug.ts';
import { summary, svgPhoto } from './listings-data.ts';

/**
 * The agency's people as the relay answers `GET /api/v1/team` and `GET /api/v1/agents/{id}`
 * (contract/relay-api.ts), for the server-side rendering suites (test/interop/ssr.test.ts,
 * test/pages/render.people.test.ts), which render the elements without a relay. The element
 * suites use the runner's real relay instead. Photos are inline SVGs.
 */
export const OFFICE: Office = { name: 'Harbour & Yarra Property', phone: '(03) 9555 0100' };

export function member(id: number, name: string, overrides: Partial<TeamMember> = {}): TeamMember {
  return {
    id,
    name,
    slug: addressSlug(name),
    position: 'Sales Agent',
    phone: '(03) 9555 01' + String(id).padStart(2, '0'),
    email: null,
    photo: svgPhoto(id, 800, 1000),
    listingCount: 3,
    ...overrides,
  };
}

export function team(items: TeamMember[] = defaultMembers()): Team {
  return { items, office: OFFICE };
}

export function defaultMembers(): TeamMember[] {
  return [
    member(21, 'Sarah Nguyen', { position: 'Director', listingCount: 5 }),
    member(22, 'Tom Okafor', { listingCount: 1 }),
    // A property manager with nothing on the market, no photo and no number to give.
    member(23, 'Priya Raman', { position: 'Property Manager', listingCount: 0, photo: null, phone: null }),
  ];
}

export function profile(id: number, overrides: Partial<AgentProfile> = {}): AgentProfile {
  return {
    ...member(id, 'Sarah Nguyen', { position: 'Director', listingCount: 2 }),
    profile: {
      format: 'html',
      html: '<p>Sarah has sold homes in <strong>Kew</strong> for twenty years.</p><p><a href="https://example.com/awards">Her awards</a></p>',
    },
    current: [summary(id * 100 + 1), summary(id * 100 + 2, { type: 'lease', displayPrice: '$750 per week' })],
    results: [summary(id * 100 + 3, { status: 'sold', badge: 'sold', displayPrice: 'Sold $1,420,000' })],
    office: OFFICE,
    ...overrides,
  };
}
