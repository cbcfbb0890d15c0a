// How the elements show one of the agency's people (or the office): a number to call, and the
// initials that stand in for a photo the agency has not given.

/** `tel:` URL from a number as the agency typed it ("0412 345 678", "+61 3 9000 0000"); null when it is none. */
export function telHref(phone: string): string | null {
  const digits = phone.replace(/(?!^\+)[^\d]/g, '');
  return /^\+?\d{3,20}$/.test(digits) ? `tel:${digits}` : null;
}

/** Up to two initials of a name ("Sarah Nguyen": "SN"), for the portrait's place when there is no photo. */
export function initials(name: string): string {
  return name
    .split(/\s+/)
    .map((part) => part[0] ?? '')
    .join('')
    .slice(0, 2)
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
