import type { Agent, TeamMember } from '../../contract/relay-api.ts';
import { addressSlug } from '../../contract/slug.ts';
import type { TeamSettings } from '../runtime/config.ts';
import type { CachedAgent } from './cache.ts';
import type { AgentFields } from './source.ts';

/*
 * The agency's people as the public sees them: who faces the public, in what order, and how they
 * are reached. The rules, in the relay's terms; what the CRM calls things stays in server/crm/.
 *
 * - Public: shown on the web in the CRM (the cache keeps no one else), not hidden by the agency
 *   (TEAM_HIDDEN), and either named on a listing (current, sold or leased) or given a public-facing
 *   role. Back-office staff (not shown on the web; or no listings and no such role) never are.
 * - Order: TEAM_ORDER's ids first, in that order; then by name.
 * - Contact: by default an agent's office line (else the office's number) and no e-mail; their own
 *   e-mail and mobile only with AGENT_DIRECT_CONTACT (a mobile they hide from portals never: the
 *   adapter leaves it out).
 */

/** How many of the cached listings name an agent: current ones, and all (sold and leased too). */
export interface AgentListingCounts {
  current: number;
  all: number;
}

/** The agency's rules over its people (TeamSettings, from config.ts, per agency from AGENCIES_FILE). */
export class TeamRules {
  private readonly hidden: ReadonlySet<number>;
  private readonly rank: ReadonlyMap<number, number>;

  constructor(
    readonly settings: TeamSettings,
    /** The office's number (SITE_PHONE): an agent's where the CRM gives them no office line (mobile-only staff, as in real records). */
    private readonly officePhone: string | null = null,
  ) {
    this.hidden = new Set(settings.hidden);
    this.rank = new Map(settings.order.map((id, index) => [id, index]));
  }

  /** Whether the agency hides this person everywhere (no card, no page, never on a listing). */
  isHidden(id: number): boolean {
    return this.hidden.has(id);
  }

  /** Whether a staff member shown on the web faces the public: not hidden, and with listings or a public role. */
  facesPublic(agent: CachedAgent, counts: AgentListingCounts | undefined): boolean {
    return !this.isHidden(agent.id) && ((counts?.all ?? 0) > 0 || agent.publicRole);
  }

  /** The agency's order: TEAM_ORDER first, as listed; then by name (then id, so two of one name keep a stable order). */
  sort<T extends { id: number; name: string }>(members: readonly T[]): T[] {
    const collator = new Intl.Collator('en-AU', { sensitivity: 'base' });
    return [...members].sort((a, b) => {
      const rankA = this.rank.get(a.id) ?? Infinity;
      const rankB = this.rank.get(b.id) ?? Infinity;
      if (rankA !== rankB) return rankA - rankB;
      return collator.compare(a.name, b.name) || a.id - b.id;
    });
  }

  /** The phone and e-mail an answer may show of this agent, by the agency's setting. */
  contact(fields: AgentFields): Pick<Agent, 'phone' | 'email'> {
    if (!this.settings.directContact) return { phone: fields.officePhone ?? this.officePhone, email: null };
    return { phone: fields.mobile ?? fields.officePhone ?? this.officePhone, email: fields.email };
  }

  /** An agent as every answer shows them (a listing's agents, GET /api/v1/agents), field by field. */
  agent(fields: AgentFields, photo: Agent['photo']): Agent {
    return { id: fields.id, name: fields.name, position: fields.position, ...this.contact(fields), photo };
  }

  /** A team card: the agent, their page's slug and how many current listings they have. */
  member(fields: AgentFields, photo: Agent['photo'], counts: AgentListingCounts | undefined): TeamMember {
    // The name part of the agent's page path (`/listings/agents/42/sarah-nguyen`), as listing pages slug their address.
    return { ...this.agent(fields, photo), slug: addressSlug(fields.name), listingCount: counts?.current ?? 0 };
  }
}
