import { z } from 'zod';

/**
 * Shapes of the CRM's contacts and requirements (crm-v1.3-openapi-contacts.yml), read with the
 * same rules as schemas.ts: loose objects, every field but the record's id nullish.
 */

const id = z.number().int();
const str = z.string().nullish();
const num = z.number().nullish();
const int = z.number().int().nullish();
const list = <T extends z.ZodType>(item: T) =>
  z
    .array(item)
    .nullish()
    .transform((value) => value ?? []);

/** ContactSearchResult (GET /search/contacts/email): only the id and addresses are read. */
export const crmContactSearchResultSchema = z.looseObject({ id, emails: list(z.string()) });

/** ContactExtended (POST /contacts, GET /contacts/{id}): the id is what the relay keeps; its unsubscribe flags, what it never overrides. */
export const crmContactSchema = z.looseObject({
  id,
  emails: list(z.string()),
  unsubscribe: z.looseObject({ email: z.boolean().nullish(), sms: z.boolean().nullish(), letters: z.boolean().nullish() }).nullish(),
});

/** ContactNoteExtended (POST /contacts/{id}/notes, and the list's items): the id, and the body the relay looks its own up by. */
export const crmContactNoteSchema = z.looseObject({ id, body: z.string().nullish() });

export const crmSuburbSchema = z.looseObject({
  id: int,
  name: str,
  postcode: str,
  state: z.looseObject({ id: int, name: str, abbreviation: str }).nullish(),
});
export type CrmSuburb = z.infer<typeof crmSuburbSchema>;

const areaRange = z.looseObject({ minimum: num, maximum: num, units: str });

/** ContactRequirement (GET/POST /contacts/{id}/requirements). */
export const crmRequirementSchema = z.looseObject({
  id,
  active: z.boolean().nullish(),
  type: str,
  propertyClass: z.looseObject({ id: int, name: str, internalName: str }).nullish(),
  minimumPrice: num,
  maximumPrice: num,
  minimumBed: int,
  minimumBath: int,
  minimumCar: int,
  landArea: areaRange.nullish(),
  buildingArea: areaRange.nullish(),
  propertyTypes: list(z.looseObject({ id: int, name: str })),
  suburbs: list(crmSuburbSchema),
});
export type CrmRequirement = z.infer<typeof crmRequirementSchema>;

/** Category (GET /contacts/{id}/categories). */
export const crmCategorySchema = z.looseObject({ id, name: str });

/** SuccessOrError: the answer of PUT /contacts/{id}/categories. */
export const crmSuccessSchema = z.looseObject({ success: z.boolean().nullish(), msg: str });

/** AddContact, as the relay sends it (the fields it fills in). */
export interface AddContact {
  firstName: string;
  lastName?: string;
  emails: string[];
  phoneNumbers?: Array<{ number: string; typeCode: 'M'; type: 'Mobile' }>;
  /** Only what the relay knows: e-mail consent confirmed (false) or not (true, with SMS); the rest is the CRM's default. */
  unsubscribe: { email: boolean; sms?: boolean; letters?: boolean };
}

/** A Suburb as a requirement names it: its id when the relay has seen it in the CRM's records, else its name, postcode and state. */
export interface RequirementSuburb {
  id?: number;
  name?: string;
  postcode?: string;
  state?: { abbreviation: string };
}

/** AddUpdateContactRequirement, as the relay sends it. */
export interface AddRequirement {
  /** False for one an agent is to confirm with the person first (agent confirmation): the CRM matches no listing to it until then. */
  active: boolean;
  type: 'sale' | 'lease' | 'saleOrLease';
  propertyClass?: { id: number };
  minimumPrice?: number;
  maximumPrice?: number;
  minimumBed?: number;
  minimumBath?: number;
  minimumCar?: number;
  /** AreaRange: square metres of land at least. */
  landArea?: { minimum: number; units: 'sqm' };
  propertyTypes?: Array<{ id: number }>;
  suburbs?: RequirementSuburb[];
}
