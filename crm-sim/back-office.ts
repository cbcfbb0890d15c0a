import type { SimContact } from './contacts.ts';
import type { CaughtMail } from './mail-catcher.ts';
import type { IntegratorKey, SimulatorState } from './state.ts';

/**
 * `GET /__sim/`: the simulator's back office, one server-rendered page (no script): the mail its
 * catcher received (newest first, links clickable), and per account the contacts and holding-area
 * enquiries the API received, as an agent would look at them in the CRM. What a newcomer to the
 * demo reads to see a saved search land; what a developer reads instead of JSON.
 */

/** Accounts shown in full (a bench may hold thousands); the rest are counted. */
const ACCOUNTS_SHOWN = 20;
/** Records of each kind shown, newest first. */
const RECORDS_SHOWN = 50;

export interface BackOfficeOptions {
  mail: CaughtMail[];
  /** Where mail is caught (SMTP_URL for a relay), when there is a catcher. */
  mailUrl?: string;
  /** `?embed=1`: inside the demo site's page (links open over the whole page). */
  embedded?: boolean;
}

const escapeHtml = (value: unknown): string =>
  String(value ?? '').replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

/** A date as the page shows it: UTC to the minute (the same on every machine). */
function when(time: number | string): string {
  const date = typeof time === 'number' ? new Date(time) : new Date(time);
  return Number.isNaN(date.getTime()) ? escapeHtml(time) : `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function mailSection(options: BackOfficeOptions): string {
  const target = options.embedded ? ' target="_top"' : '';
  const newest = [...options.mail].reverse().slice(0, RECORDS_SHOWN);
  const where = options.mailUrl ? `<p class="muted">Caught at <code>${escapeHtml(options.mailUrl)}</code> (any login; nothing is sent on).</p>` : '';
  const items = newest
    .map(
      (mail) => `<li class="card">
  <h3>${escapeHtml(mail.subject || '(no subject)')}</h3>
  <dl class="facts">
    <div><dt>To</dt><dd>${escapeHtml(mail.to.join(', '))}</dd></div>
    <div><dt>From</dt><dd>${escapeHtml(mail.from)}</dd></div>
    <div><dt>Received</dt><dd><time datetime="${escapeHtml(mail.receivedAt)}">${when(mail.receivedAt)}</time></dd></div>
  </dl>
  <pre class="body">${escapeHtml(mail.text)}</pre>
  ${
    mail.links.length
      ? `<p class="links-label" id="mail-${mail.id}-links">Links in this message</p>
  <ul class="links" aria-labelledby="mail-${mail.id}-links">${mail.links.map((link) => `<li><a href="${escapeHtml(link)}"${target}>${escapeHtml(link)}</a></li>`).join('')}</ul>`
      : ''
  }
</li>`,
    )
    .join('\n');
  return `<section aria-labelledby="mail-heading">
<h2 id="mail-heading">Mail received (${options.mail.length})</h2>
${where}
${items ? `<ol class="cards" reversed>${items}</ol>` : '<p>No mail yet. A saved search ("Get alerts for this search") sends its confirmation here.</p>'}
</section>`;
}

/** Contact notes, once the simulator keeps them (read as they come: text with a date, or plain strings). */
function notesOf(contact: SimContact): string[] {
  const notes = (contact as SimContact & { notes?: unknown }).notes;
  if (!Array.isArray(notes)) return [];
  return notes.flatMap((note: unknown) => {
    if (typeof note === 'string') return [note];
    if (typeof note !== 'object' || note === null) return [];
    const record = note as Record<string, unknown>;
    const text = [record.text, record.body, record.note, record.description].find((value) => typeof value === 'string');
    if (typeof text !== 'string') return [];
    const at = typeof record.inserted === 'number' ? `${when(record.inserted)}: ` : '';
    return [`${at}${text}`];
  });
}

const dollars = (amount: number) => `$${amount.toLocaleString('en-AU')}`;

function priceText(minimum: number | null, maximum: number | null): string {
  if (minimum !== null && maximum !== null) return `${dollars(minimum)}–${dollars(maximum)}`;
  if (maximum !== null) return `up to ${dollars(maximum)}`;
  return minimum !== null ? `from ${dollars(minimum)}` : '';
}

function requirementText(requirement: SimContact['requirements'][number]): string {
  const parts = [
    requirement.type,
    requirement.suburbs.map((suburb) => suburb.name).join(', '),
    priceText(requirement.minimumPrice, requirement.maximumPrice),
    requirement.minimumBed !== null ? `${requirement.minimumBed}+ bed` : '',
    requirement.minimumBath !== null ? `${requirement.minimumBath}+ bath` : '',
    requirement.minimumCar !== null ? `${requirement.minimumCar}+ car` : '',
    requirement.propertyTypes.length ? requirement.propertyTypes.join(', ') : '',
    requirement.active ? '' : 'inactive',
  ].filter(Boolean);
  return parts.join(' · ');
}

function contactsSection(account: SimulatorState): string {
  const contacts = account.contacts.posted().slice(-RECORDS_SHOWN).reverse();
  const items = contacts
    .map((contact) => {
      const name = [contact.firstName, contact.lastName].filter(Boolean).join(' ') || '(no name)';
      const flags = Object.entries(contact.unsubscribe)
        .filter(([, set]) => set)
        .map(([channel]) => channel);
      const notes = notesOf(contact);
      return `<li class="card">
  <h4>${escapeHtml(name)}</h4>
  <dl class="facts">
    <div><dt>E-mail</dt><dd>${escapeHtml(contact.emails.join(', ') || 'none')}</dd></div>
    <div><dt>Unsubscribed from</dt><dd>${flags.length ? escapeHtml(flags.join(', ')) : 'nothing (subscribed)'}</dd></div>
    <div><dt>Categories</dt><dd>${contact.categories.length ? escapeHtml(contact.categories.join(', ')) : 'none'}</dd></div>
    <div><dt>Modified</dt><dd>${when(contact.modified)}</dd></div>
  </dl>
  <p class="label">Requirements (${contact.requirements.length})</p>
  ${
    contact.requirements.length
      ? `<ul class="plain">${contact.requirements.map((requirement) => `<li>${escapeHtml(requirementText(requirement))}</li>`).join('')}</ul>`
      : '<p class="muted">none</p>'
  }
  ${notes.length ? `<p class="label">Notes (${notes.length})</p><ul class="plain">${notes.map((note) => `<li>${escapeHtml(note)}</li>`).join('')}</ul>` : ''}
</li>`;
    })
    .join('\n');
  return `<h3>Contacts created or changed through the API (${account.contacts.posted().length})</h3>
${items ? `<ul class="cards">${items}</ul>` : '<p class="muted">None yet.</p>'}`;
}

function enquiriesSection(account: SimulatorState): string {
  const enquiries = account.postedEnquiries().slice(-RECORDS_SHOWN).reverse();
  const items = enquiries
    .map(
      (enquiry) => `<li class="card">
  <h4>${escapeHtml(enquiry.subject ?? '(no subject)')}</h4>
  <dl class="facts">
    <div><dt>From</dt><dd>${escapeHtml([enquiry.fullName, enquiry.email, enquiry.mobile].filter(Boolean).join(', ') || 'unknown')}</dd></div>
    <div><dt>Received</dt><dd>${when(enquiry.inserted)}</dd></div>
    <div><dt>Source</dt><dd>${escapeHtml(enquiry.source)}${enquiry.categories.length ? `; ${escapeHtml(enquiry.categories.map((category) => category.name).join(', '))}` : ''}</dd></div>
    ${enquiry.propertyReference ? `<div><dt>Listing</dt><dd>${escapeHtml(enquiry.propertyReference)}</dd></div>` : ''}
  </dl>
  ${enquiry.body ? `<pre class="body">${escapeHtml(enquiry.body)}</pre>` : ''}
  ${
    enquiry.metaData.length
      ? `<details><summary>Metadata (${enquiry.metaData.length})</summary><dl class="facts">${enquiry.metaData
          .map((entry) => `<div><dt>${escapeHtml(entry.key)}</dt><dd>${escapeHtml(entry.value)}</dd></div>`)
          .join('')}</dl></details>`
      : ''
  }
</li>`,
    )
    .join('\n');
  return `<h3>Holding area: enquiries received through the API (${account.postedEnquiries().length})</h3>
${items ? `<ul class="cards">${items}</ul>` : '<p class="muted">None yet.</p>'}`;
}

const STYLE = `
:root { color-scheme: light; font: 1rem/1.5 system-ui, sans-serif; color: #1f2328; background: #f6f8fa; }
body { margin: 0; }
.wrap { max-width: 72rem; margin: 0 auto; padding: 1rem; }
header { border-bottom: 1px solid #d0d7de; background: #fff; }
h1 { font-size: 1.5rem; margin: 0.25rem 0; }
h2 { font-size: 1.25rem; margin: 1.5rem 0 0.5rem; }
h3 { font-size: 1.0625rem; margin: 1rem 0 0.5rem; }
h4 { font-size: 1rem; margin: 0 0 0.5rem; }
.cards { list-style: none; margin: 0; padding: 0; display: grid; gap: 0.75rem; grid-template-columns: repeat(auto-fill, minmax(min(100%, 22rem), 1fr)); }
.card { background: #fff; border: 1px solid #d0d7de; border-radius: 0.5rem; padding: 0.75rem 1rem; min-width: 0; }
.card > h3 { margin-top: 0; }
.facts { margin: 0 0 0.5rem; }
.facts div { display: flex; flex-wrap: wrap; gap: 0 0.5rem; }
.facts dt { font-weight: 600; }
.facts dd { margin: 0; overflow-wrap: anywhere; }
.body { white-space: pre-wrap; overflow-wrap: anywhere; font: inherit; background: #f6f8fa; border-radius: 0.25rem; padding: 0.5rem; margin: 0 0 0.5rem; }
.links, .plain { margin: 0; padding-left: 1.25rem; }
.links li { padding: 0.25rem 0; }
.links a { overflow-wrap: anywhere; }
a { color: #0a58ca; }
a:focus-visible { outline: 3px solid #0b5cad; outline-offset: 2px; }
.label, .links-label { font-weight: 600; margin: 0.5rem 0 0.25rem; }
.muted { color: #57606a; }
nav ul { list-style: none; display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; margin: 0.5rem 0 0; padding: 0; }
nav a { display: inline-block; padding: 0.25rem 0; }
code { overflow-wrap: anywhere; }
`;

/** The page; `key` holds the accounts, `options` the mail. */
export function renderBackOffice(key: IntegratorKey, options: BackOfficeOptions): string {
  const accounts = key.accounts.slice(0, ACCOUNTS_SHOWN);
  const more = key.accounts.length - accounts.length;
  const accountSections = accounts
    .map(
      (account) => `<section aria-labelledby="account-${account.accountId}">
<h2 id="account-${account.accountId}">Account ${account.accountId}: ${escapeHtml(account.agency.name)}</h2>
${contactsSection(account)}
${enquiriesSection(account)}
</section>`,
    )
    .join('\n');
  const nav = [
    `<li><a href="#mail-heading">Mail (${options.mail.length})</a></li>`,
    ...accounts.map((account) => `<li><a href="#account-${account.accountId}">Account ${account.accountId}</a></li>`),
    `<li><a href="?${options.embedded ? 'embed=1' : ''}">Refresh</a></li>`,
  ].join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Back office · CRM simulator</title>
<style>${STYLE}</style>
</head>
<body>
<header><div class="wrap">
<h1>CRM simulator: back office</h1>
<p class="muted">What the simulated CRM and its mail catcher have received, newest first. Reload the page to see what arrived since.</p>
<nav aria-label="Sections"><ul>${nav}</ul></nav>
</div></header>
<main class="wrap">
${mailSection(options)}
${accountSections}
${more > 0 ? `<p>… and ${more} more accounts (<a href="accounts">GET /__sim/accounts</a>).</p>` : ''}
</main>
</body>
</html>`;
}
