import { createHash } from 'node:crypto';
import { z } from 'zod';
import { CONSENT_TEXT_MAX, type EnquiryRequest, type LeadKind, type SellingWhen } from '../../contract/relay-api.ts';
import { ENQUIRY_BATCH_MAX_HOMES } from '../../contract/enquiry-batch.ts';
import { nameProblem } from '../../contract/name.ts';
import { compactPhone, isPhoneNumber } from '../../contract/phone.ts';
import { LEAD_BODY_BYTES } from '../../contract/attribution.ts';
import { campaignField, pageField } from './attribution.ts';

/**
 * Limits of `POST /api/v1/enquiries` (issue 3). The JSON body limit is the lead's without its
 * attribution (attribution.ts leadWithinLimit); the parser takes the room an attribution may add.
 */
export const ENQUIRY_LIMITS = {
  bodyBytes: LEAD_BODY_BYTES,
  fullName: 100,
  email: 254,
  subject: 200,
  message: 5_000,
  website: 500,
  /** A week: a form left open longer than that is still a person, but the number is nonsense. */
  elapsedMs: 7 * 24 * 60 * 60 * 1000,
} as const;

/**
 * Limits of `POST /api/v1/enquiries/batch`: as many homes as a shortlist sends at once (the
 * shortlist itself has no maximum: the widget sends a longer one in several batches), and room for
 * the question once and each home's id, listing and subject.
 */
export const ENQUIRY_BATCH_LIMITS = {
  homes: ENQUIRY_BATCH_MAX_HOMES,
  bodyBytes: 64 * 1024,
} as const;

/** Limits of the other kinds of lead (issue 22). */
export const LEAD_LIMITS = {
  street: 200,
  suburb: 100,
  propertyType: 50,
  attendees: 10,
  preferredTimes: 3,
  /** How far ahead a private inspection may be asked for. */
  inspectionWindowDays: 60,
} as const;

export const LEAD_KINDS = ['enquiry', 'appraisal', 'open-home', 'inspection'] as const satisfies readonly LeadKind[];
const SELLING_WHEN = ['now', '3-months', '6-months', '12-months', 'not-sure'] as const satisfies readonly SellingWhen[];
/** An ISO 8601 date-time with seconds optional and an offset (Z or ±hh:mm): what Date.parse reads the same everywhere. */
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

/** C0 controls and DEL; a name or subject has no business holding them (header-injection shapes). */
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;
/** Every control character and invisible format character (zero-width, direction overrides): consent words are kept as plain text. */
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS_GLOBAL = /[\u0000-\u001f\u007f\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]/g;
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

/** Who to answer, their consent and the spam checks: the fields every kind of lead has. */
export const contactFields = {
  originalId: z
    .string({ error: 'originalId is required (a UUID)' })
    .trim()
    .pipe(z.uuid({ error: 'originalId must be a UUID' }))
    .transform((value) => value.toLowerCase()),
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
  consent: z.boolean({ error: 'consent must be true or false' }).optional(),
  // The words the visitor agreed to, kept with the consent (its record: when, where, which words).
  consentText: z
    .string({ error: 'consentText must be text (the consent box’s words)' })
    .max(CONSENT_TEXT_MAX * 2, { error: `consentText must be at most ${CONSENT_TEXT_MAX} characters` })
    .transform((value) => value.replace(CONTROL_CHARS_GLOBAL, ' ').replace(/\s+/g, ' ').trim())
    .pipe(z.string().max(CONSENT_TEXT_MAX, { error: `consentText must be at most ${CONSENT_TEXT_MAX} characters` }))
    .transform((value) => (value === '' ? undefined : value))
    .optional(),
  website: z.string({ error: 'website must be text' }).max(ENQUIRY_LIMITS.website, { error: 'website is too long' }).optional(),
  elapsedMs: z
    .number({ error: 'elapsedMs is required (milliseconds the form was shown)' })
    .int({ error: 'elapsedMs must be a whole number' })
    .min(0, { error: 'elapsedMs must not be negative' })
    .max(ENQUIRY_LIMITS.elapsedMs, { error: 'elapsedMs is too large' }),
  // Where it came from: unusable values are dropped, not refused (attribution.ts).
  page: pageField,
  campaign: campaignField,
};

const whole = (label: string, min: number, max: number) =>
  z
    .number({ error: `${label} must be a number` })
    .int({ error: `${label} must be a whole number` })
    .min(min, { error: `${label} must be at least ${min}` })
    .max(max, { error: `${label} must be at most ${max}` });

const required = (label: string) => ({ error: (issue: { input: unknown }) => (issue.input === undefined ? `${label} is required` : undefined) });

/** A question about a listing or to an agent: the enquiry of issue 3, unchanged (`kind` absent or 'enquiry'). */
const questionSchema = z
  .object({
    kind: z.literal('enquiry').optional(),
    ...contactFields,
    listingId: id('listingId'),
    agentId: id('agentId'),
    subject: optionalText('Subject', ENQUIRY_LIMITS.subject, CONTROL_CHARS),
    message: text('Message', ENQUIRY_LIMITS.message, CONTROL_CHARS_EXCEPT_LINES),
  })
  .superRefine((value, ctx) => {
    const given = [value.listingId, value.agentId].filter((target) => target !== undefined).length;
    if (given === 1) return;
    const message = given === 0 ? 'Give listingId or agentId' : 'Give listingId or agentId, not both';
    ctx.addIssue({ code: 'custom', path: ['listingId'], message });
    ctx.addIssue({ code: 'custom', path: ['agentId'], message });
  });

/** The optional note every other kind may carry. */
const note = optionalText('Message', ENQUIRY_LIMITS.message, CONTROL_CHARS_EXCEPT_LINES);

const appraisalSchema = z.object({
  kind: z.literal('appraisal'),
  ...contactFields,
  agentId: id('agentId'),
  street: text('Street address', LEAD_LIMITS.street, CONTROL_CHARS),
  suburb: text('Suburb', LEAD_LIMITS.suburb, CONTROL_CHARS),
  postcode: z
    .string({ error: 'Postcode is required' })
    .trim()
    .regex(/^[A-Za-z0-9][A-Za-z0-9 ]{2,8}[A-Za-z0-9]$/, { error: 'Postcode must be a postcode such as 3101' }),
  propertyType: optionalText('Property type', LEAD_LIMITS.propertyType, CONTROL_CHARS),
  bedrooms: whole('Bedrooms', 0, 20).optional(),
  sellingWhen: z.enum(SELLING_WHEN, { error: `sellingWhen must be one of ${SELLING_WHEN.join(', ')}` }).optional(),
  message: note,
});

const openHomeSchema = z.object({
  kind: z.literal('open-home'),
  ...contactFields,
  listingId: z.number(required('listingId')).pipe(id('listingId').unwrap()),
  openHomeId: z.number(required('openHomeId')).pipe(id('openHomeId').unwrap()),
  attendees: z.number(required('Number of people')).pipe(whole('Number of people', 1, LEAD_LIMITS.attendees)),
  message: note,
});

const inspectionSchema = z.object({
  kind: z.literal('inspection'),
  ...contactFields,
  listingId: z.number(required('listingId')).pipe(id('listingId').unwrap()),
  preferredTimes: z
    .array(
      z
        .string({ error: 'Each preferred time must be text' })
        .refine((value) => ISO_WITH_OFFSET.test(value) && !Number.isNaN(Date.parse(value)), {
          error: 'Each preferred time must be a date and time such as 2025-06-14T10:30:00+10:00',
        })
        .transform((value) => new Date(value).toISOString()),
      { error: 'preferredTimes must be a list of date-times' },
    )
    .min(1, { error: 'Give at least one preferred time' })
    .max(LEAD_LIMITS.preferredTimes, { error: `Give at most ${LEAD_LIMITS.preferredTimes} preferred times` })
    .refine((times) => new Set(times).size === times.length, { error: 'The same time is given twice' }),
  message: note,
});

/**
 * The body of `POST /api/v1/enquiries`: one lead of any kind (`kind`, absent for the original
 * question). Unknown fields are dropped (a newer widget may send more); every known field is
 * checked, and the parsed value is what the handler and the outbox use.
 */
export const enquiryRequestSchema = z.discriminatedUnion('kind', [questionSchema, appraisalSchema, openHomeSchema, inspectionSchema], {
  error: (issue) =>
    issue.code === 'invalid_union'
      ? `kind must be one of ${LEAD_KINDS.join(', ')}`
      : issue.code === 'invalid_type' && issue.path?.length === 0
        ? 'The body must be a JSON object'
        : undefined,
});

/**
 * The shape of a batch (contract EnquiryBatchRequest): its list of homes. Each home's lead (the
 * shared fields with its originalId, listing and subject) is then checked as one
 * `POST /api/v1/enquiries` body, and answered on its own.
 */
export const enquiryBatchSchema = z.object({
  kind: z.literal('enquiry', { error: 'kind must be enquiry (a batch holds questions)' }).optional(),
  homes: z
    .array(
      z.object(
        {
          originalId: z.string({ error: 'Each home needs an originalId (a UUID)' }),
          listingId: z.number({ error: 'Each home needs a listingId' }),
          subject: z.string({ error: 'A subject must be text' }).optional(),
        },
        { error: 'Each home must be an object with originalId and listingId' },
      ),
      { error: 'homes must be a list of homes' },
    )
    .min(1, { error: 'Give at least one home' })
    .max(ENQUIRY_BATCH_LIMITS.homes, { error: `Give at most ${ENQUIRY_BATCH_LIMITS.homes} homes` })
    .refine((homes) => new Set(homes.map((home) => home.listingId)).size === homes.length, { error: 'The same listing is given twice' })
    .refine((homes) => new Set(homes.map((home) => home.originalId.trim().toLowerCase())).size === homes.length, {
      error: 'The same originalId is given twice',
    }),
});

type Parsed = z.output<typeof enquiryRequestSchema>;
export type ParsedQuestion = Exclude<Parsed, { kind: 'appraisal' | 'open-home' | 'inspection' }>;
export type ParsedAppraisal = Extract<Parsed, { kind: 'appraisal' }>;
export type ParsedInspection = Extract<Parsed, { kind: 'inspection' }>;
/**
 * An open-home registration; `openHome` is the open home's times as the relay's look-up found them
 * at acceptance (never the visitor's: the schema does not read it), which the lead names.
 */
export type ParsedOpenHomeRegistration = Extract<Parsed, { kind: 'open-home' }> & { openHome?: { start: string; end: string } };
/** A lead as validated, and as the outbox keeps it. */
export type ParsedEnquiry = ParsedQuestion | ParsedAppraisal | ParsedOpenHomeRegistration | ParsedInspection;

/** The original question (about a listing or to an agent), whatever its stored form. */
export function isQuestion(lead: ParsedEnquiry): lead is ParsedQuestion {
  return lead.kind === undefined || lead.kind === 'enquiry';
}

/** A lead's kind: absent is the original question (and every payload stored before kinds existed). */
export function leadKind(lead: Pick<ParsedEnquiry, 'kind'>): LeadKind {
  return lead.kind ?? 'enquiry';
}

/** What a lead is about: a listing, an agent, or (an appraisal naming no agent) the office. */
export function leadAbout(lead: ParsedEnquiry): 'listing' | 'agent' | 'office' {
  if ('agentId' in lead && lead.agentId !== undefined) return 'agent';
  if ('listingId' in lead && lead.listingId !== undefined) return 'listing';
  return 'office';
}

/** The listing or agent a lead names (the outbox's columns, and the look-up's keys). */
export function leadTarget(lead: ParsedEnquiry): { listingId?: number; agentId?: number } {
  const about = leadAbout(lead);
  if (about === 'agent') return { agentId: (lead as { agentId: number }).agentId };
  if (about === 'listing') return { listingId: (lead as { listingId: number }).listingId };
  return {};
}

// The schema and the public contract must not drift apart: both directions are checked.
enquiryRequestSchema satisfies z.ZodType<EnquiryRequest, EnquiryRequest>;
export const contractMatchesSchema = (request: EnquiryRequest): z.input<typeof enquiryRequestSchema> => request;

/**
 * What is wrong with a lead's times now (field → message), checked after the schema and only for a
 * lead not already accepted (a retry of an accepted one hours later still gets its 202): an
 * inspection's preferred times are in the future and at most LEAD_LIMITS.inspectionWindowDays ahead.
 */
export function timeProblems(lead: ParsedEnquiry, now: number): Record<string, string> | undefined {
  if (lead.kind !== 'inspection') return undefined;
  const times = lead.preferredTimes.map((time) => Date.parse(time));
  if (times.some((time) => time <= now)) return { preferredTimes: 'Each preferred time must be in the future' };
  const days = LEAD_LIMITS.inspectionWindowDays;
  if (times.some((time) => time > now + days * 24 * 60 * 60_000)) return { preferredTimes: `Each preferred time must be within the next ${days} days` };
  return undefined;
}

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
 * response re-measures elapsedMs, and that must not turn its retry into a 409. A question's list
 * is the one it had before lead kinds existed, so a retry across an upgrade still matches. The page
 * and campaign are not in it either: nobody typed them. A SHA-256 digest, keyed before it is stored
 * (lead-keys.ts): it holds the address.
 */
export function enquiryFingerprint(enquiry: ParsedEnquiry): string {
  const common = [
    enquiry.originalId,
    'listingId' in enquiry ? (enquiry.listingId ?? null) : null,
    'agentId' in enquiry ? (enquiry.agentId ?? null) : null,
    enquiry.fullName,
    enquiry.email.toLowerCase(),
    enquiry.mobile === undefined ? null : compactPhone(enquiry.mobile),
  ];
  const canonical = isQuestion(enquiry)
    ? [...common, enquiry.subject ?? null, enquiry.message, enquiry.consent ?? null]
    : [...common, enquiry.message ?? null, enquiry.consent ?? null, enquiry.kind, ...kindFields(enquiry)];
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex');
}

function kindFields(lead: ParsedAppraisal | ParsedOpenHomeRegistration | ParsedInspection): unknown[] {
  switch (lead.kind) {
    case 'appraisal':
      return [lead.street, lead.suburb, lead.postcode.toUpperCase(), lead.propertyType ?? null, lead.bedrooms ?? null, lead.sellingWhen ?? null];
    case 'open-home':
      return [lead.openHomeId, lead.attendees];
    case 'inspection':
      return lead.preferredTimes;
  }
}

/**
 * For a lead that may be sent once per person and occasion, the digest that says so: an open-home
 * registration's open home and e-mail address (lower case), as SHA-256. Never stored as it is: an
 * unkeyed digest of an address lets anyone holding a backup confirm a guessed address, so the
 * outbox keeps it keyed with the relay's secret (lead-keys.ts). Undefined for other kinds.
 */
export function onceKey(lead: ParsedEnquiry): string | undefined {
  if (lead.kind !== 'open-home') return undefined;
  return createHash('sha256')
    .update(JSON.stringify(['open-home', lead.openHomeId, lead.email.toLowerCase()]))
    .digest('hex');
}

/** Text as a person means it: runs of white space (a line break retyped as a space) are one space. */
const sameWords = (value: string | undefined): string => (value ?? '').replace(/\s+/g, ' ').trim();

/**
 * What makes two leads under different originalIds one intent (one lead per intent, docs/api.md),
 * as a SHA-256 digest (keyed before it is stored, as onceKey): the same person (e-mail address,
 * any letter case), kind and message, and
 * - a question: the same listing, or the same agent;
 * - an appraisal: the same address (street, suburb, postcode; letter case and spacing aside) and
 *   agent, if one was named;
 * - an inspection: the same listing and preferred times (in any order).
 * Everything else (name, mobile, subject, consent, a question's subject, the timing, where it came
 * from) may differ: a visitor correcting a typo in their name and sending again still means one
 * lead. Undefined for an open-home registration, which is once per person and open home for good
 * (onceKey).
 */
export function intentDigest(lead: ParsedEnquiry): string | undefined {
  const about = intentOf(lead);
  if (about === undefined) return undefined;
  return createHash('sha256')
    .update(JSON.stringify(['intent', lead.email.toLowerCase(), ...about, sameWords(lead.message)]))
    .digest('hex');
}

function intentOf(lead: ParsedEnquiry): unknown[] | undefined {
  if (isQuestion(lead)) return ['enquiry', lead.listingId ?? null, lead.agentId ?? null];
  switch (lead.kind) {
    case 'appraisal':
      return [
        'appraisal',
        lead.agentId ?? null,
        sameWords(lead.street).toLowerCase(),
        sameWords(lead.suburb).toLowerCase(),
        lead.postcode.replace(/\s+/g, '').toUpperCase(),
      ];
    case 'inspection':
      return ['inspection', lead.listingId, [...lead.preferredTimes].sort()];
    case 'open-home':
      return undefined;
  }
}
