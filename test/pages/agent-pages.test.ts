// Issue #31: the agency's people, server side. Two simulator accounts on one key, one relay
// (AGENCIES_FILE), real SQLite and real HTTP (Host headers through node:http: fetch cannot set them).
// The team and agent API and pages of every public agent of both agencies, by path and by Host;
// what a hidden agent and a back-office user leave behind (nothing); a departed agent's 410; and the
// agency's choice of how agents are reached, changed by a restart with no new sync.
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentProfile, ListingDetail, ListingSummary, Page, Team } from '../../contract/relay-api.ts';
import { addressSlug } from '../../contract/slug.ts';
import type { SimUser } from '../../crm-sim/model.ts';
import { plainText } from '../../server/crm/plain-text.ts';
import { startAgenciesRig, until, type AgenciesRig, type AgencyFileEntry } from '../compose/rig.ts';

interface Answer {
  status: number;
  text: string;
}

const HOSTS = { 'agency-a': 'people.agency-a.example', 'agency-b': 'people.agency-b.example' } as const;
type Slug = keyof typeof HOSTS;
const SLUGS = Object.keys(HOSTS) as Slug[];
const OFFICE_PHONE = { 'agency-a': '(03) 5550 0001', 'agency-b': '(02) 5550 0002' } as const;

/**
 * The schema.org terms the pages use, each with the types schema.org declares it on (its
 * domainIncludes, with the types' own ancestors: RealEstateAgent is a LocalBusiness, an Organization,
 * a Place and a Thing; Person a Thing), as https://schema.org/ defines them. A property on a type
 * outside its domain, or a type not here, fails.
 */
const VOCABULARY: { types: Record<string, string[]>; properties: Record<string, string[]> } = {
  types: { Person: ['Person', 'Thing'], RealEstateAgent: ['RealEstateAgent', 'LocalBusiness', 'Organization', 'Place', 'Thing'] },
  properties: {
    name: ['Thing'],
    url: ['Thing'],
    image: ['Thing'],
    jobTitle: ['Person'],
    telephone: ['Person', 'Organization', 'Place', 'ContactPoint'],
    email: ['Person', 'Organization', 'ContactPoint'],
    worksFor: ['Person'],
    employee: ['Organization'],
  },
};
/** What a property's value must be (its rangeIncludes): a node of these types. */
const NODE_RANGES: Record<string, string> = { worksFor: 'Organization', employee: 'Person' };

/** The problems of a JSON-LD node against VOCABULARY (none: valid), recursively. */
function vocabularyProblems(node: Record<string, unknown>, path = '$'): string[] {
  const type = node['@type'];
  if (typeof type !== 'string' || !VOCABULARY.types[type]) return [`${path}: @type ${JSON.stringify(type)} is not a type of the vocabulary`];
  const ancestry = VOCABULARY.types[type];
  const problems: string[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (key.startsWith('@')) continue;
    const domain = VOCABULARY.properties[key];
    if (!domain) problems.push(`${path}.${key}: not a property the vocabulary has`);
    else if (!domain.some((each) => ancestry.includes(each))) problems.push(`${path}.${key}: not a property of ${type}`);
    const range = NODE_RANGES[key];
    for (const [index, item] of (Array.isArray(value) ? value : [value]).entries()) {
      if (range) {
        if (typeof item !== 'object' || item === null) problems.push(`${path}.${key}[${index}]: must be a ${range}`);
        else {
          const itemType = (item as Record<string, unknown>)['@type'] as string;
          if (!VOCABULARY.types[itemType]?.includes(range)) problems.push(`${path}.${key}[${index}]: a ${itemType} is not a ${range}`);
          problems.push(...vocabularyProblems(item as Record<string, unknown>, `${path}.${key}[${index}]`));
        }
      } else if (typeof item !== 'string' || item === '') problems.push(`${path}.${key}: must be text or a URL`);
    }
  }
  return problems;
}

function unescapeHtml(text: string): string {
  return text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

const jsonLdOf = (html: string) =>
  [...html.matchAll(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/g)].map((match) => JSON.parse(match[1]!) as Record<string, unknown>);
const canonicalOf = (html: string) => unescapeHtml(/<link rel="canonical" href="([^"]*)"/.exec(html)?.[1] ?? '');
const metaOf = (html: string, key: string) => unescapeHtml(new RegExp(`<meta (?:name|property)="${key}" content="([^"]*)"`).exec(html)?.[1] ?? '');
/** Listing ids the page links to in its crawlable lists of an agent's listings. */
const linkedListingIds = (html: string, prefix: string) =>
  [...html.matchAll(/<nav class="estate-agent-listings"[\s\S]*?<\/nav>/g)]
    .flatMap((nav) => [...nav[0].matchAll(new RegExp(`href="${prefix}/(\\d+)/`, 'g'))])
    .map((match) => Number(match[1]));

describe("the agency's people on a relay of two agencies", () => {
  let rig: AgenciesRig;
  const account = (slug: Slug) => rig.accounts[SLUGS.indexOf(slug)]!;
  /** Who each agency hides (TEAM_HIDDEN) and its back office (not shown on the web). */
  const hidden = new Map<Slug, SimUser>();
  const backOffice = new Map<Slug, SimUser>();
  /** B's first in its order (TEAM_ORDER). */
  let firstInOrder: SimUser;
  let withHtmlProfile: SimUser;

  function getAt(host: string | null, path: string): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const request = httpRequest(`${rig.relay.url}${path}`, { headers: host ? { Host: host } : {} }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode!, text: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', reject);
      });
      request.on('error', reject);
      request.end();
    });
  }
  const api = async <T>(slug: Slug, path: string): Promise<{ status: number; body: T }> => {
    const { status, body } = await rig.request<T>(`/a/${slug}/api/v1${path}`);
    return { status, body };
  };
  const publicUsers = (slug: Slug) => account(slug).users.filter((user) => user.showOnWeb && user.id !== hidden.get(slug)!.id);
  const userName = (user: SimUser) => `${String(user.fields.firstName)} ${String(user.fields.lastName)}`;
  const phonesOf = (user: SimUser) => user.fields.phoneNumbers as Array<{ number: string; typeCode: string }>;
  /** The agent's office line; null for one who gave only a mobile (the simulator's auctioneer). */
  const officeLine = (user: SimUser) => phonesOf(user).find((phone) => phone.typeCode !== 'M')?.number ?? null;

  /** Every listing the agency's relay serves (all statuses), in full. */
  async function detailsOf(slug: Slug): Promise<ListingDetail[]> {
    const details: ListingDetail[] = [];
    for (const status of ['available', 'sold', 'leased']) {
      const { body } = await api<Page<ListingSummary>>(slug, `/listings?status=${status}&pageSize=100`);
      for (const item of body.items) details.push((await api<ListingDetail>(slug, `/listings/${item.id}`)).body);
    }
    return details;
  }

  /** Every route of the relay a visitor or crawler can reach for the agency, by path and by Host: the text of each answer. */
  async function everyAnswer(slug: Slug): Promise<string[]> {
    const texts: string[] = [];
    const both = async (path: string) => {
      texts.push((await getAt(null, `/a/${slug}${path}`)).text, (await getAt(HOSTS[slug], path)).text);
    };
    for (const path of [
      '/api/v1/team',
      '/api/v1/agents',
      '/api/v1/suburbs',
      '/listings/agents',
      '/sitemap.xml',
      '/listings/buy',
      '/listings/rent',
      '/listings/sold',
    ])
      await both(path);
    for (const status of ['available', 'sold', 'leased']) await both(`/api/v1/listings?status=${status}&pageSize=100`);
    for (const detail of await detailsOf(slug)) {
      await both(`/api/v1/listings/${detail.id}`);
      await both(`/listings/${detail.id}/${addressSlug(detail.address.display)}`);
    }
    for (const user of account(slug).users) {
      await both(`/api/v1/agents/${user.id}`);
      await both(`/listings/agents/${user.id}/${addressSlug(userName(user))}`);
    }
    return texts;
  }

  beforeAll(async () => {
    rig = await startAgenciesRig({
      agencies: 2,
      listings: 14,
      maxUrlsPerSitemap: 1000,
      entry: (entry, index) => ({ ...entry, hosts: [HOSTS[SLUGS[index]!]], allowedOrigins: [entry.siteUrl!, `https://${HOSTS[SLUGS[index]!]}`] }),
    });
    for (const slug of SLUGS) {
      const users = account(slug).users;
      // Hidden: an agent the CRM shows on the web and who lists homes; the back office: one it does not show.
      hidden.set(slug, users.filter((user) => user.showOnWeb && user.listsProperties).at(-1)!);
      backOffice.set(
        slug,
        users.find((user) => !user.showOnWeb && !user.listsProperties)!,
      );
    }
    firstInOrder = publicUsers('agency-b').at(-1)!;
    withHtmlProfile = publicUsers('agency-a')[0]!;
    account('agency-a').changeUser(withHtmlProfile.id, {
      fields: {
        profile:
          '<p onclick="steal()">Twenty years in <b>Kew</b> &#x2022; <a href="https://reviews.example/anna" target="_blank">reviews</a> ' +
          '<a href="javascript:alert(1)">bad</a></p><script>alert("x")</script><img src="x" onerror="alert(1)"><ul><li>Auctions</li></ul>',
      },
    });
    rig.writeAgencies(
      rig.entries.map((entry) => {
        const slug = entry.slug as Slug;
        return {
          ...entry,
          phone: OFFICE_PHONE[slug],
          teamHidden: [hidden.get(slug)!.id],
          ...(slug === 'agency-b' ? { teamOrder: [firstInOrder.id] } : {}),
        } satisfies AgencyFileEntry;
      }),
    );
    await rig.restart();
    await rig.syncAll();
  }, 120_000);

  afterAll(async () => {
    await rig?.close();
  });

  it("answers GET /api/v1/team with each agency's public people only, in its order, and its office", async () => {
    for (const slug of SLUGS) {
      const { status, body } = await api<Team>(slug, '/team');
      expect(status).toBe(200);
      expect(body.office).toEqual({ name: account(slug).agency.name, phone: OFFICE_PHONE[slug] });
      expect(body.items.map((member) => member.id).sort()).toEqual(
        publicUsers(slug)
          .map((user) => user.id)
          .sort(),
      );
      const byName = body.items.filter((member) => slug === 'agency-a' || member.id !== firstInOrder.id).map((member) => member.name);
      expect(byName).toEqual([...byName].sort((a, b) => a.localeCompare(b, 'en-AU', { sensitivity: 'base' })));
      if (slug === 'agency-b') expect(body.items[0]!.id).toBe(firstInOrder.id);
      for (const member of body.items) {
        expect(member.slug).toBe(addressSlug(member.name));
        // The default: the office line (null for one with a mobile only), never the agent's mobile or e-mail.
        expect(member.email).toBeNull();
        // A mobile-only agent (the auctioneer, as both web staff of the real records) is reached at the office.
        expect(member.phone).toBe(officeLine(account(slug).user(member.id)!) ?? OFFICE_PHONE[slug]);
        if (member.phone !== null) expect(member.phone).toMatch(/^\(0[23]\) 5550 \d{4}$/);
        expect(Object.keys(member).sort()).toEqual(['email', 'id', 'listingCount', 'name', 'phone', 'photo', 'position', 'slug']);
      }
    }
  });

  it('pages every public agent of both agencies, by path and by Host, listing exactly their own listings', async () => {
    for (const slug of SLUGS) {
      const details = await detailsOf(slug);
      const otherIds = new Set((await detailsOf(SLUGS.find((other) => other !== slug)!)).map((detail) => detail.id));
      const team = (await api<Team>(slug, '/team')).body;
      expect(team.items.length).toBeGreaterThan(3);
      for (const member of team.items) {
        const own = details.filter((detail) => detail.agents.some((agent) => agent.id === member.id));
        const profile = (await api<AgentProfile>(slug, `/agents/${member.id}`)).body;
        expect(profile.id).toBe(member.id);
        expect([...profile.current, ...profile.results].map((listing) => listing.id).sort()).toEqual(own.map((detail) => detail.id).sort());
        expect(profile.current.every((listing) => listing.status === 'available')).toBe(true);
        expect(profile.listingCount).toBe(profile.current.length);
        // Every public agent of the simulator has a portrait (the page's og:image below).
        expect(member.photo, `${slug} agent ${member.id}'s photo`).not.toBeNull();
        const path = `/listings/agents/${member.id}/${member.slug}`;
        for (const [host, at] of [
          [null, `/a/${slug}${path}`],
          [HOSTS[slug], path],
        ] as const) {
          const page = await getAt(host, at);
          expect(page.status, `${slug} ${at}`).toBe(200);
          expect(canonicalOf(page.text)).toBe(`https://${slug}.example${path}`);
          const prefix = host ? '/listings' : `/a/${slug}/listings`;
          // Agency A's pages name its site (siteUrl): the links are its site's paths either way.
          const linked = linkedListingIds(page.text, '/listings');
          expect(linked.sort(), `${slug} agent ${member.id} via ${prefix}`).toEqual(own.map((detail) => detail.id).sort());
          for (const id of linked) expect(otherIds.has(id), `another agency's listing ${id} on ${at}`).toBe(false);
          expect(page.text).toMatch(/<estate-agent\s/);
          expect(metaOf(page.text, 'og:type')).toBe('profile');
          expect(metaOf(page.text, 'og:image')).toMatch(/\/photos\/[0-9a-f]+-\d+\.jpg$/);
        }
      }
    }
  });

  it('sends an agent page without its name, or with an old one, to the canonical path', async () => {
    const member = (await api<Team>('agency-a', '/team')).body.items[0]!;
    for (const path of [`/listings/agents/${member.id}`, `/listings/agents/${member.id}/someone-else`]) {
      const answer = await getAt(HOSTS['agency-a'], path);
      expect(answer.status, path).toBe(301);
    }
  });

  it('gives each agent page JSON-LD valid against schema.org: a Person working for the agency as a RealEstateAgent', async () => {
    for (const slug of SLUGS) {
      const team = (await api<Team>(slug, '/team')).body;
      for (const member of team.items) {
        const html = (await getAt(HOSTS[slug], `/listings/agents/${member.id}/${member.slug}`)).text;
        const [data, ...more] = jsonLdOf(html);
        expect(more).toEqual([]);
        expect(data!['@context']).toBe('https://schema.org');
        const { '@context': _context, ...node } = data!;
        expect(vocabularyProblems(node)).toEqual([]);
        expect(node).toMatchObject({
          '@type': 'Person',
          name: member.name,
          jobTitle: member.position,
          // No number, no telephone (JSON-LD leaves out what is unknown).
          ...(member.phone === null ? {} : { telephone: member.phone }),
          url: `https://${slug}.example/listings/agents/${member.id}/${member.slug}`,
          worksFor: { '@type': 'RealEstateAgent', '@id': `https://${slug}.example/#agency`, name: account(slug).agency.name, telephone: OFFICE_PHONE[slug] },
        });
        if (member.phone === null) expect(node).not.toHaveProperty('telephone');
        expect(member.photo, `${slug} agent ${member.id}'s photo`).not.toBeNull();
        expect(node.image).toMatch(/^https:\/\/relay\.integrator\.test\/photos\//);
      }
      const teamPage = (await getAt(HOSTS[slug], '/listings/agents')).text;
      const [agency] = jsonLdOf(teamPage);
      const { '@context': _context, ...node } = agency!;
      expect(vocabularyProblems(node)).toEqual([]);
      expect((node.employee as Array<{ name: string }>).map((person) => person.name)).toEqual(team.items.map((member) => member.name));
      // The team page links every agent's page, plainly, for crawlers.
      for (const member of team.items) expect(teamPage).toContain(`href="/listings/agents/${member.id}/${member.slug}"`);
    }
  });

  it("lists each agency's team and agent pages in its own sitemap only, agent pages with lastmod", async () => {
    for (const slug of SLUGS) {
      const xml = (await getAt(HOSTS[slug], '/sitemap.xml')).text;
      const agentLocs = [...xml.matchAll(/<url><loc>([^<]*\/listings\/agents[^<]*)<\/loc>(<lastmod>[^<]+<\/lastmod>)?<\/url>/g)];
      const team = (await api<Team>(slug, '/team')).body;
      expect(agentLocs.map((match) => match[1]).sort()).toEqual(
        [
          `https://${slug}.example/listings/agents`,
          ...team.items.map((member) => `https://${slug}.example/listings/agents/${member.id}/${member.slug}`),
        ].sort(),
      );
      // An agent page changes with their listings: its lastmod is the newest of theirs (none known: none said).
      for (const member of team.items) {
        const profile = (await api<AgentProfile>(slug, `/agents/${member.id}`)).body;
        const newest = [...profile.current, ...profile.results].map((listing) => Date.parse(listing.modified)).sort((a, b) => b - a)[0];
        const match = agentLocs.find((each) => each[1]!.endsWith(`/agents/${member.id}/${member.slug}`))!;
        if (newest === undefined) expect(match[2]).toBeUndefined();
        else expect(Date.parse(match[2]!.replace(/<\/?lastmod>/g, ''))).toBe(Math.floor(newest / 1000) * 1000);
      }
      expect(agentLocs.filter((match) => match[2]).length).toBeGreaterThan(3);
      const other = SLUGS.find((each) => each !== slug)!;
      for (const user of account(other).users) expect(xml).not.toContain(`/agents/${user.id}/`);
    }
  });

  it('answers 404 for a hidden agent and a back-office user, on the API and the pages, and their e-mail is in no answer', async () => {
    for (const slug of SLUGS) {
      for (const user of [hidden.get(slug)!, backOffice.get(slug)!]) {
        const answer = await api<{ error: string }>(slug, `/agents/${user.id}`);
        expect(answer.status, `${slug} user ${user.id}`).toBe(404);
        expect(answer.body.error).toBe('not_found');
        const path = `/listings/agents/${user.id}/${addressSlug(userName(user))}`;
        expect((await getAt(HOSTS[slug], path)).status).toBe(404);
        expect((await getAt(null, `/a/${slug}${path}`)).status).toBe(404);
      }
      const answers = (await everyAnswer(slug)).join('\n');
      for (const user of account(slug).users) {
        // No agent's e-mail at all with AGENT_DIRECT_CONTACT off; nor the mobile of one.
        expect(answers).not.toContain(String(user.fields.email));
        const mobile = (user.fields.phoneNumbers as Array<{ number: string; typeCode: string }>).find((phone) => phone.typeCode === 'M')!.number;
        expect(answers).not.toContain(mobile);
      }
      for (const user of [hidden.get(slug)!, backOffice.get(slug)!]) expect(answers).not.toContain(userName(user));
      // Nor does a hidden person take a contact-me lead (a guessed id): refused as an unknown agent, nothing queued.
      const lead = await rig.request<{ fields?: Record<string, string> }>(`/a/${slug}/api/v1/enquiries`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          originalId: randomUUID(),
          agentId: hidden.get(slug)!.id,
          fullName: 'Jane Citizen',
          email: 'jane@example.com',
          message: 'Could you call me?',
          consent: true,
          website: '',
          elapsedMs: 25_000,
        }),
      });
      expect(lead.status, `${slug}: a lead to a hidden agent`).toBe(400);
      expect(Object.keys(lead.body.fields ?? {})).toEqual(['agentId']);
    }
  }, 120_000);

  it('cleans a profile written in HTML: no script, no handler, no javascript: link; its links nofollow', async () => {
    const profile = (await api<AgentProfile>('agency-a', `/agents/${withHtmlProfile.id}`)).body.profile;
    expect(profile).toEqual({
      format: 'html',
      html: '<p>Twenty years in <b>Kew</b> \u2022 <a href="https://reviews.example/anna" rel="nofollow noopener">reviews</a> <a rel="nofollow noopener">bad</a></p><ul><li>Auctions</li></ul>',
    });
    const other = (await api<Team>('agency-a', '/team')).body.items.find(
      (member) => member.id !== withHtmlProfile.id && account('agency-a').user(member.id)?.fields.profile,
    )!;
    expect((await api<AgentProfile>('agency-a', `/agents/${other.id}`)).body.profile).toEqual({
      format: 'text',
      // As the CRM wrote it, its CRLF line breaks as \n and its entities (&#x2022;) decoded.
      text: plainText(String(account('agency-a').user(other.id)!.fields.profile)),
    });
  });

  it("answers 410 for an agent who had a page and left; their listing's card names the office instead", async () => {
    const slug: Slug = 'agency-b';
    const details = await detailsOf(slug);
    const team = (await api<Team>(slug, '/team')).body;
    // One whose listing names them alone: once they leave, it names no one.
    const leaving = team.items.find((member) => details.some((detail) => detail.agents.length === 1 && detail.agents[0]!.id === member.id))!;
    expect(leaving).toBeDefined();
    const theirs = details.filter((detail) => detail.agents.length === 1 && detail.agents[0]!.id === leaving.id);
    const path = `/listings/agents/${leaving.id}/${leaving.slug}`;
    expect((await getAt(HOSTS[slug], path)).status).toBe(200);
    await fetch(`${rig.sim.origin}/__sim/users/${leaving.id}?account=${account(slug).accountId}`, { method: 'DELETE' }).then((response) =>
      expect(response.status).toBe(200),
    );
    const running = rig.relay.agencies!.list().find((each) => each.entry.slug === slug)!;
    await running.agency.listings.sync.refreshStaff();
    const gone = await until(
      () => api<{ error: string }>(slug, `/agents/${leaving.id}`),
      (answer) => answer.status === 410,
      10_000,
    );
    expect(gone.body.error).toBe('agent_gone');
    const page = await getAt(HOSTS[slug], path);
    expect(page.status).toBe(410);
    expect(page.text).toContain('href="/listings/agents"');
    expect(page.text).toContain('noindex');
    for (const detail of theirs) {
      const after = (await api<ListingDetail>(slug, `/listings/${detail.id}`)).body;
      expect(after.agents).toEqual([]);
      expect(after.office).toEqual({ name: account(slug).agency.name, phone: OFFICE_PHONE[slug] });
    }
    expect((await api<Team>(slug, '/team')).body.items.map((member) => member.id)).not.toContain(leaving.id);
    // Never public at all stays 404: the record is of pages that were.
    expect((await api(slug, `/agents/${backOffice.get(slug)!.id}`)).status).toBe(404);
  });

  it("shows agents' own e-mail and mobile once the agency allows it, at a restart with no new sync; never a hidden agent's", async () => {
    const usersRead = () => rig.sim.key.counters.requestsByEndpoint['GET /account/users'] ?? 0;
    const requestsBefore = usersRead();
    rig.writeAgencies(rig.entries.map((entry) => (entry.slug === 'agency-a' ? { ...entry, agentDirectContact: true } : entry)));
    await rig.restart();
    const team = await until(
      () => api<Team>('agency-a', '/team'),
      (answer) => answer.status === 200,
      10_000,
    );
    for (const member of team.body.items) {
      const user = account('agency-a').user(member.id)!;
      expect(member.email).toBe(user.fields.email);
      // Their mobile, unless they hide it from portals (then the office line, as by default).
      const mobile = phonesOf(user).find((phone) => phone.typeCode === 'M')!.number;
      expect(member.phone).toBe(user.fields.hideMobileFromPortal === true ? (officeLine(user) ?? OFFICE_PHONE['agency-a']) : mobile);
    }
    const member = team.body.items[0]!;
    const html = (await getAt(HOSTS['agency-a'], `/listings/agents/${member.id}/${member.slug}`)).text;
    expect(jsonLdOf(html)[0]).toMatchObject({ email: member.email, telephone: member.phone });
    const answers = (await everyAnswer('agency-a')).join('\n');
    expect(answers).not.toContain(String(hidden.get('agency-a')!.fields.email));
    expect(answers).not.toContain(String(backOffice.get('agency-a')!.fields.email));
    // Agency B did not allow it.
    expect((await api<Team>('agency-b', '/team')).body.items.every((each) => each.email === null)).toBe(true);
    // Both ways of reaching them were in the cache already: the staff were not read again.
    expect(usersRead()).toBe(requestsBefore);
  }, 120_000);
});
