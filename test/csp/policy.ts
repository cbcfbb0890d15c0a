// The Content-Security-Policy of the test's agency page: a strict site policy (nothing inline,
// Trusted Types enforced) plus exactly what the widget needs. docs/embedding.md quotes these lines and a
// test checks the quote, so the documented policy is the tested one.

/** A strict policy an agency site might already have: its own files only, no inline code. */
export const SITE_POLICY: Record<string, string[]> = {
  'default-src': ["'none'"],
  'script-src': ["'self'"],
  'style-src': ["'self'"],
  'img-src': ["'self'"],
  'connect-src': ["'self'"],
  'base-uri': ["'none'"],
  'object-src': ["'none'"],
  'form-action': ["'self'"],
  'require-trusted-types-for': ["'script'"],
  'trusted-types': [],
};

/** What the widget adds to each directive, for a relay at `relayOrigin`. */
export function widgetAdditions(relayOrigin: string): Record<string, string[]> {
  return {
    // The widget script itself.
    'script-src': [relayOrigin],
    // The relay API: listings, listing detail, enquiries.
    'connect-src': [relayOrigin],
    // Photos from the relay's mirror.
    'img-src': [relayOrigin],
    // Lit's policy for its templates, and ours for the listing's JSON-LD structured data.
    'trusted-types': ['lit-html', 'estate-embed'],
  };
}

export function policyHeader(relayOrigin: string): string {
  const additions = widgetAdditions(relayOrigin);
  return Object.entries(SITE_POLICY)
    .map(([directive, sources]) => [directive, ...sources, ...(additions[directive] ?? [])].join(' '))
    .join('; ');
}

/** The lines docs/embedding.md shows (with a placeholder relay origin). */
export function readmePolicyLines(relayOrigin = 'https://relay.agency.example'): string[] {
  return Object.entries(widgetAdditions(relayOrigin)).map(([directive, sources]) => `${directive} ${sources.join(' ')}`);
}
