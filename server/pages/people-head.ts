import type { AgentProfile, Team, TeamMember } from '../../contract/relay-api.ts';
import { clip, scriptJson } from './html.ts';
import { agencyNode, listHead, shareImage } from './head.ts';
import type { PageText } from './words.ts';

/*
 * The heads of the team page and an agent's page: title, description, canonical, Open Graph and
 * schema.org JSON-LD.
 *
 * schema.org: `worksFor` is a property of Person, and RealEstateAgent is an Organization (a
 * LocalBusiness): an agent is a `Person` whose `worksFor` is the agency, a `RealEstateAgent`, the
 * node the listing pages name as their provider (same `@id`). A node typed both Person and
 * RealEstateAgent would claim one thing is a person and a business at once, which validators
 * flag. The team page is the agency, its people as `employee` (a property of Organization).
 * Only what the answers themselves carry: the phone and e-mail the agency's setting allows.
 */

export interface PeopleHeadContext {
  canonical: string;
  siteName: string | null;
  /** The agency's site URL (the agency's `@id` and `url`). */
  siteUrl: string;
  /** Photo URLs are resolved against it (the relay as browsers reach it). */
  relayUrl: string;
  /** An agent's page path on the site, made absolute (for the team's `employee` entries). */
  agentUrl(member: TeamMember): string;
  /** The page's words (words.ts), in the site's language. */
  text: PageText;
}

function personNode(member: TeamMember, url: string, relayUrl: string): Record<string, unknown> {
  const image = shareImage(member.photo, relayUrl, member.name);
  return {
    '@type': 'Person',
    '@id': `${url}#person`,
    name: member.name,
    ...(member.position ? { jobTitle: member.position } : {}),
    ...(image ? { image: image.url } : {}),
    ...(member.phone ? { telephone: member.phone } : {}),
    ...(member.email ? { email: member.email } : {}),
    url,
  };
}

/** The team page's head: the agency with its people. */
export function teamHead(team: Team, context: PeopleHeadContext & { title: string }): string {
  const agencyName = team.office.name ?? context.siteName;
  const names = team.items.slice(0, 4).map((member) => (member.position ? `${member.name} (${member.position})` : member.name));
  const description = clip(
    [
      agencyName
        ? context.text.count('teamDescriptionAt', team.items.length, { agency: agencyName })
        : context.text.count('teamDescription', team.items.length),
      names.join(', '),
    ]
      .filter(Boolean)
      .join(' '),
    160,
  );
  const first = team.items.find((member) => member.photo);
  const graph = {
    '@context': 'https://schema.org',
    ...agencyNode(team.office, context.siteName, context.siteUrl),
    employee: team.items.map((member) => personNode(member, context.agentUrl(member), context.relayUrl)),
  };
  return [
    listHead({
      title: context.title,
      description,
      canonical: context.canonical,
      siteName: context.siteName,
      image: shareImage(first?.photo, context.relayUrl, first?.name ?? context.title),
    }),
    `<script type="application/ld+json">${scriptJson(graph)}</script>`,
  ].join('\n');
}

/** An agent's page head: the person, the agency they work for, their photo to share. */
export function agentHead(agent: AgentProfile, context: PeopleHeadContext): string {
  const profile = agent.profile ? (agent.profile.format === 'text' ? agent.profile.text : htmlText(agent.profile.html)) : '';
  const counts = [
    agent.current.length ? context.text.count('agentHomes', agent.current.length) : null,
    agent.results.length ? context.text.count('agentResults', agent.results.length) : null,
  ].filter(Boolean);
  const agencyName = agent.office.name ?? context.siteName;
  const description = clip(
    profile ||
      [
        agencyName
          ? context.text.say('agentAt', { name: agent.position ? `${agent.name}, ${agent.position}` : agent.name, agency: agencyName })
          : `${agent.name}.`,
        ...counts,
      ].join(' '),
    160,
  );
  const person = { ...personNode(agent, context.canonical, context.relayUrl), worksFor: agencyNode(agent.office, context.siteName, context.siteUrl) };
  return [
    listHead({
      title: agent.position ? `${agent.name}, ${agent.position}` : agent.name,
      description,
      canonical: context.canonical,
      siteName: context.siteName,
      image: shareImage(agent.photo, context.relayUrl, agent.name),
      type: 'profile',
    }),
    `<script type="application/ld+json">${scriptJson({ '@context': 'https://schema.org', ...person })}</script>`,
  ].join('\n');
}

/** A cleaned profile's words, for a description (its tags are the relay's own small set). */
function htmlText(html: string): string {
  return html
    .replace(/<(?:br|\/p|\/li)[^>]*>/g, ' ')
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}
