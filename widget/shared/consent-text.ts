/**
 * The words of a lead form's consent box as the visitor saw them, sent with the consent
 * (`consentText`, contract/relay-api.ts) so the agency can show what was agreed to. One helper for
 * every form with a consent box (the enquiry form, the lead forms, the saved search).
 */
import { CONSENT_TEXT_MAX } from '../../contract/relay-api.ts';

/**
 * The consent label's text in `root` (a form's shadow root): what the page slotted into
 * `slot="consent"` when it did (a link's words included), else the label the form rendered itself
 * (`consent-text`, else its default words); whitespace collapsed, at most CONSENT_TEXT_MAX
 * characters. Undefined when the form shows no consent box or its label is empty.
 */
export function consentText(root: ParentNode): string | undefined {
  const label = root.querySelector('label[for="consent"]');
  if (!label) return undefined;
  const slot = label.querySelector('slot');
  const slotted = slot?.assignedNodes({ flatten: true }) ?? [];
  const text = (slotted.length > 0 ? slotted.map((node) => node.textContent ?? '').join('') : (label.textContent ?? '')).replace(/\s+/g, ' ').trim();
  return text ? text.slice(0, CONSENT_TEXT_MAX) : undefined;
}
