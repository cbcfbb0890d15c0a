import type { AgentProfile, Office, Team, TeamMember } from '../../contract/relay-api.ts';
import { addressSlug } from '../../contract/slug.ts';
import { summary, svgPhoto } from './listings-data.ts';

/**
 * The agency's people as the relay answers `GET /api/v1/team` and `GET /api/v1/agents/{id}`
 * (contract/relay-api.ts), for the element suites: the states the demo relay cannot be made to
 * show on demand (no photo, no phone, an e-mail the agency allows, a profile in HTML or text, a
 * 410). Photos are inline SVGs unless a test gives one from the relay's mirror.
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

/** A relay answer, JSON as the relay sends it. */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });
}

/**
 * Answers the people's routes of the relay for one test (the rest of the relay is the real one),
 * counting the requests; `answer` gets the path after `/api/v1/`. Returns the restore function.
 */
export function stubPeople(answer: (path: string) => Response | Promise<Response>): { restore: () => void; requests: string[] } {
  const real = window.fetch;
  const requests: string[] = [];
  window.fetch = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input), location.href);
    const match = /\/api\/v1\/(team|agents\/[^/?]+)$/.exec(url.pathname);
    if (!match) return real(input, init);
    requests.push(match[1]!);
    return Promise.resolve(answer(match[1]!));
  };
  return { restore: () => (window.fetch = real), requests };
}
