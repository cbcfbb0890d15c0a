// How the elements show one of the agency's people (or the office): a number to call, and the
// initials that stand in for a photo the agency has not given.

/** `tel:` URL from a number as the agency typed it ("0412 345 678", "+61 3 9000 0000"); null when it is none. */
export function telHref(phone: string): string | null {
  const digits = phone.replace(/(?!^\+)[^\d]/g, '');
  return /^\+?\d{3,20}$/.test(digits) ? `tel:${digits}` : null;
}

/** The first and last names' initials ("Sarah Nguyen": "SN", "Mei Lin Chen": "MC"), for the portrait's place when there is no photo. */
export function initials(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  const ends = words.length > 1 ? [words[0]!, words.at(-1)!] : words;
  return ends
    .map((word) => word[0] ?? '')
    .join('')
    .toUpperCase();
}

/** An e-mail address fit for a `mailto:` link; null for anything else. */
export function mailAddress(email: string | null | undefined): string | null {
  return email && /^[^\s@<>]+@[^\s@<>]+$/.test(email) ? email : null;
}

/** A phone number whose spaces do not break ("(03) 9555 0121" stays one line while it fits one). */
export function unbroken(phone: string): string {
  return phone.replace(/ /g, '\u00a0');
}
