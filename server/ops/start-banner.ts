import type { WidgetScriptTags } from './script-tags.ts';

/** What the start-up banner names: the relay's addresses and, in demo mode, the simulator's. */
export interface StartBannerFacts {
  /** Where the relay listens (http://127.0.0.1:8787). */
  url: string;
  /** PUBLIC_URL, when set (the address browsers use). */
  publicUrl: string | undefined;
  demoMode: boolean;
  /** Its back office, whose mail section is the inbox. */
  simulator?: { backOfficeUrl: string } | undefined;
  /** The simulator's mail catcher takes the relay's mail (no SMTP_URL set). */
  mailCaught: boolean;
  tags: WidgetScriptTags;
  /** SIM_AGENCIES: the simulator's other agencies, each under /a/<slug>/. */
  otherAgencies: ReadonlyArray<{ name: string; slug: string }>;
}

/**
 * The few lines `npm start` prints on a terminal (issue #33): what to open, where the simulator's
 * back office and inbox are, the tag to paste, and how to change the port and the log. Everything
 * else (the plan, the sync, the pinned tag) is in the log, as JSON where an operator collects it.
 */
export function startBanner(facts: StartBannerFacts): string {
  const rows: Array<[string, string]> = [];
  const base = (facts.publicUrl ?? facts.url).replace(/\/+$/, '');
  if (facts.demoMode) {
    rows.push(['Demo site', `${base}/`], ['Listing pages', `${base}/listings/buy`]);
    if (facts.simulator) {
      const control = facts.simulator.backOfficeUrl.replace(/\/+$/, '');
      rows.push(['CRM simulator', `${control}/  (its back office: leads, contacts; control API under it)`]);
      if (facts.mailCaught) rows.push(['Inbox', `${control}/#mail-heading  (the mail the relay sends)`]);
    }
    for (const agency of facts.otherAgencies) rows.push([agency.name, `${base}/a/${agency.slug}/`]);
  } else {
    rows.push(['Relay', facts.publicUrl ? `${base}/  (listening on ${facts.url})` : `${base}/`]);
  }
  rows.push(['Widget tag', facts.tags.latest]);
  if (!facts.demoMode) rows.push(['Pinned (SRI)', facts.tags.pinned?.tag ?? 'the widget is not built: run npm run build:widget for this tag']);
  const width = Math.max(...rows.map(([label]) => label.length)) + 2;
  const title = facts.demoMode ? "estate-embed relay, demo mode: its built-in CRM simulator stands in for the agency's CRM" : 'estate-embed relay';
  return [
    '',
    `  ${title}`,
    ...rows.map(([label, value]) => `  ${label.padEnd(width)}${value}`),
    '  Another port: PORT=8080 npm start · JSON logs: LOG_FORMAT=json · Ctrl+C stops',
    '',
  ].join('\n');
}
