import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { EnquiryRequest } from '../../contract/relay-api.ts';
import { nameProblem } from '../../contract/name.ts';
import { compactPhone, isPhoneNumber } from '../../contract/phone.ts';
import { campaignField, pageField } from './attribution.ts';

/** Limits of `POST /api/v1/enquiries` (issue 3). The JSON body limit is enforced by the body parser. */
export const ENQUIRY_LIMITS = {
  bodyBytes: 16 * 1024,
  fullName: 100,
  email: 254,
  subject: 200,
  message: 5_000,
  website: 500,
  /** A week: a form left open longer than that is still a person, but the number is nonsense. */
  elapsedMs: 7 * 24 * 60 * 60 * 1000,
} as const;

/** C0 controls and DEL; a name or subject has no business holding them (header-injection shapes). */
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;
/** The message may hold line breaks and tabs, nothing else below space. */
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS_EXCEPT_LINES = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

const text = (label: string, max: number, controls: RegExp) =>
  z
    .string({ error: `${label} must be text` })
    .transform((value) => value.trim())
    .pipe(
      z
        .string()
        .min(1, { error: `${label} is required` })
        .max(max, { error: `${label} must be at most ${max} characters` })
        .refine((value) => !controls.test(value), { error: `${label} contains characters that are not allowed` }),
    );

/** An optional text field where an empty string (an untouched form input) means "not given". */
const optionalText = (label: string, max: number, controls: RegExp) =>
  z
    .string({ error: `${label} must be text` })
    .transform((value) => value.trim())
    .pipe(
      z
        .string()
        .max(max, { error: `${label} must be at most ${max} characters` })
        .refine((value) => !controls.test(value), { error: `${label} contains characters that are not allowed` }),
    )
    .transform((value) => (value === '' ? undefined : value))
    .optional();

const id = (label: string) =>
  z
    .number({ error: `${label} must be a number` })
    .int({ error: `${label} must be a whole number` })
    .positive({ error: `${label} must be positive` })
    .max(Number.MAX_SAFE_INTEGER, { error: `${label} is too large` })
    .optional();

/**
 * The body of `POST /api/v1/enquiries`. Unknown fields are dropped (a newer widget may send more);
 * every known field is checked, and the parsed value is what the handler and the outbox use.
 */
export const enquiryRequestSchema = z
  .object(
    {
      originalId: z
        .string({ error: 'originalId is required (a UUID)' })
        .trim()
        .pipe(z.uuid({ error: 'originalId must be a UUID' }))
        .transform((value) => value.toLowerCase()),
      listingId: id('listingId'),
      agentId: id('agentId'),
      fullName: text('Full name', ENQUIRY_LIMITS.fullName, CONTROL_CHARS).superRefine((value, ctx) => {
        // Checked after trimming: spaces alone already fail "required".
        const problem = nameProblem(value);
        if (problem === 'no_letter') ctx.addIssue({ code: 'custom', message: 'Full name must contain at least one letter' });
        else if (problem === 'hidden_characters') {
          ctx.addIssue({
            code: 'custom',
            message: 'Full name contains invisible or control characters (such as zero-width spaces or text-direction overrides)',
          });
        }
      }),
      email: z
        .string({ error: 'Email is required' })
        .trim()
        .min(1, { error: 'Email is required' })
        .max(ENQUIRY_LIMITS.email, { error: `Email must be at most ${ENQUIRY_LIMITS.email} characters` })
        .pipe(z.email({ error: 'Email must be an email address such as name@example.com' })),
      mobile: z
        .string({ error: 'Mobile must be text' })
        .trim()
        .max(40, { error: 'Mobile is too long to be a phone number' })
        .refine((value) => value === '' || isPhoneNumber(value), {
          error: 'Mobile must be an Australian, New Zealand or UK phone number',
        })
        .transform((value) => (value === '' ? undefined : value))
        .optional(),
      subject: optionalText('Subject', ENQUIRY_LIMITS.subject, CONTROL_CHARS),
      message: text('Message', ENQUIRY_LIMITS.message, CONTROL_CHARS_EXCEPT_LINES),
      consent: z.boolean({ error: 'consent must be true or false' }).optional(),
      website: z.string({ error: 'website must be text' }).max(ENQUIRY_LIMITS.website, { error: 'website is too long' }).optional(),
      elapsedMs: z
        .number({ error: 'elapsedMs is required (milliseconds the form was shown)' })
        .int({ error: 'elapsedMs must be a whole number' })
        .min(0, { error: 'elapsedMs must not be negative' })
        .max(ENQUIRY_LIMITS.elapsedMs, { error: 'elapsedMs is too large' }),
      // Where it came from: unusable values are dropped, not refused (attribution.ts).
      page: pageField,
      campaign: campaignField,
    },
    { error: 'The body must be a JSON object' },
  )
  .superRefine((value, ctx) => {
    const given = [value.listingId, value.agentId].filter((target) => target !== undefined).length;
    if (given === 1) return;
    const message = given === 0 ? 'Give listingId or agentId' : 'Give listingId or agentId, not both';
    ctx.addIssue({ code: 'custom', path: ['listingId'], message });
    ctx.addIssue({ code: 'custom', path: ['agentId'], message });
  });

export type ParsedEnquiry = z.output<typeof enquiryRequestSchema>;

// The schema and the public contract must not drift apart: both directions are checked.
enquiryRequestSchema satisfies z.ZodType<EnquiryRequest, EnquiryRequest>;
export const contractMatchesSchema = (request: EnquiryRequest): z.input<typeof enquiryRequestSchema> => request;

/** Field → message for every issue (the first message per field), for the 400 body. */
export function fieldErrors(error: z.ZodError): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const issue of error.issues) {
    const name = issue.path.length > 0 ? String(issue.path[0]) : 'body';
    fields[name] ??= issue.message;
  }
  return fields;
}

/**
 * What makes two submissions "the same enquiry": every field a person typed or chose, in a fixed
 * order, after normalisation. The honeypot and the timing are left out: a widget retrying a lost
 * response re-measures elapsedMs, and that must not turn its retry into a 409. So are the page and
 * campaign: nobody typed them.
 */
export function enquiryFingerprint(enquiry: ParsedEnquiry): string {
  const canonical = JSON.stringify([
    enquiry.originalId,
    enquiry.listingId ?? null,
    enquiry.agentId ?? null,
    enquiry.fullName,
    enquiry.email.toLowerCase(),
    enquiry.mobile === undefined ? null : compactPhone(enquiry.mobile),
    enquiry.subject ?? null,
    enquiry.message,
    enquiry.consent ?? null,
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}
