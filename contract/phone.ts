/**
 * Phone numbers the agencies' CRM can dial: Australian, New Zealand and UK numbers, written the
 * way people write them (spaces, dashes, dots, brackets, a "+61 (0)4…" trunk marker).
 *
 * One check for both sides: the relay's schema and the form's constraint validation use it, so the
 * form never refuses a number the relay would take, nor lets through one it would refuse.
 * Plain functions, no validator library, so the widget bundle stays small.
 */
const PHONE_PATTERNS = [
  /^(?:\+|00)61[2-478]\d{8}$/, // AU international
  /^0[2-478]\d{8}$/, // AU local (mobiles 04, landlines 02/03/07/08)
  /^1[38]00\d{6}$/, // AU 1300 / 1800
  /^13\d{4}$/, // AU 13 xx xx
  /^(?:\+|00)64[2-9]\d{7,9}$/, // NZ international
  /^0[2-9]\d{7,9}$/, // NZ local (UK local below overlaps)
  /^(?:\+|00)44[1-9]\d{8,9}$/, // UK international
  /^0[1-9]\d{8,9}$/, // UK local
];

/** The number without separators and without an international "(0)" trunk marker. */
export function compactPhone(value: string): string {
  return value.replace(/\(0\)/g, '').replace(/[\s\-().]/g, '');
}

/** True for an AU, NZ or UK number in any of its usual written forms. */
export function isPhoneNumber(value: string): boolean {
  const compact = compactPhone(value.trim());
  return PHONE_PATTERNS.some((pattern) => pattern.test(compact));
}
