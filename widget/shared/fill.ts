// Apart from format.ts so that the enquiry form, which needs only this, does not download the
// listing elements' number, money and date formatting.

/** Replaces `{name}` placeholders; unknown names are left as written. */
export function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}
