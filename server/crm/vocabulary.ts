import type { Logger } from '../runtime/log.ts';
import type { CallOptions, CrmClient, PropertyClass } from './client.ts';
import type { CrmSuburb } from './contact-schemas.ts';

/**
 * The CRM's own words for what a visitor picked by name: a suburb's record ({id, name, postcode,
 * state}) and a property type's id and class. A saved search carries names (the listing filters
 * are the relay's public terms); a requirement wants the CRM's records. The CRM publishes no suburb
 * or type catalogue in the API the relay uses, so they are learnt from its own listing records
 * (every record carries `address.suburb` and `type` whole, as the real records show), read from the
 * `/available` lists the relay syncs, and kept in memory: read again when a name is not known and
 * the last read is older than `refreshMs`, and at most once per `maxAgeMs` otherwise.
 */

export interface KnownType {
  id: number;
  classId: number | null;
  className: PropertyClass | null;
}

/** Pages of one list read when learning (100 records each). */
const MAX_PAGES = 10;

export interface CrmVocabularyOptions {
  crm: CrmClient;
  /** The classes the relay syncs (LISTING_CLASSES): the lists it reads. */
  classes: readonly PropertyClass[];
  log: Logger;
  now?: () => number;
  /** A name not known is looked for again after this long (ms). Default 10 minutes. */
  refreshMs?: number;
  /** Everything is read again after this long (ms). Default 6 hours. */
  maxAgeMs?: number;
}

export class CrmVocabulary {
  private suburbs = new Map<string, CrmSuburb>();
  private types = new Map<string, KnownType>();
  private classIds = new Map<PropertyClass, number>();
  private readAt = Number.NEGATIVE_INFINITY;
  private reading: Promise<void> | undefined;
  private readonly now: () => number;
  private readonly refreshMs: number;
  private readonly maxAgeMs: number;

  constructor(private readonly options: CrmVocabularyOptions) {
    this.now = options.now ?? Date.now;
    this.refreshMs = options.refreshMs ?? 10 * 60_000;
    this.maxAgeMs = options.maxAgeMs ?? 6 * 60 * 60_000;
  }

  /** The CRM's suburb and type for these names (undefined where the CRM's listings never named them). Throws when the CRM cannot be read. */
  async lookup(
    names: { suburb?: string; suburbs?: readonly string[]; propertyType?: string },
    options?: CallOptions,
  ): Promise<{ suburb?: CrmSuburb; areaSuburbs?: Array<CrmSuburb | undefined>; type?: KnownType; classIds: ReadonlyMap<PropertyClass, number> }> {
    const age = this.now() - this.readAt;
    const suburbNames = [...(names.suburb === undefined ? [] : [names.suburb]), ...(names.suburbs ?? [])];
    const missing = suburbNames.some((name) => !this.suburbs.has(key(name))) || (names.propertyType !== undefined && !this.types.has(key(names.propertyType)));
    if (age >= this.maxAgeMs || (missing && age >= this.refreshMs)) await this.read(options);
    return {
      suburb: names.suburb === undefined ? undefined : this.suburbs.get(key(names.suburb)),
      ...(names.suburbs === undefined ? {} : { areaSuburbs: names.suburbs.map((name) => this.suburbs.get(key(name))) }),
      type: names.propertyType === undefined ? undefined : this.types.get(key(names.propertyType)),
      classIds: this.classIds,
    };
  }

  /** One read at a time for every caller. */
  private read(options?: CallOptions): Promise<void> {
    this.reading ??= this.readLists(options).finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  private async readLists(options?: CallOptions): Promise<void> {
    const suburbs = new Map<string, CrmSuburb>();
    const types = new Map<string, KnownType>();
    const classIds = new Map<PropertyClass, number>();
    for (const propertyClass of this.options.classes) {
      // Land and rural listings are sold, not leased: the CRM has no lease list for them.
      const markets = propertyClass === 'residential' || propertyClass === 'commercial' ? (['sale', 'lease'] as const) : (['sale'] as const);
      for (const saleOrLease of markets) {
        for (let page = 1; page <= MAX_PAGES; page++) {
          const list = await this.options.crm.listProperties(
            { class: propertyClass, saleOrLease, available: true, published: true, page, pageSize: 100 },
            options,
          );
          for (const property of list.items) {
            if (property.class?.id != null) classIds.set(propertyClass, property.class.id);
            const suburb = property.address?.suburb;
            if (suburb?.id != null && suburb.name) suburbs.set(key(suburb.name), suburb as CrmSuburb);
            const type = property.type;
            if (type?.id != null && type.name) {
              const classRecord = (type as { propertyClass?: { id?: number | null } | null }).propertyClass ?? property.class;
              types.set(key(type.name), { id: type.id, classId: classRecord?.id ?? null, className: propertyClass });
            }
          }
          if (page >= list.totalPages || list.items.length + list.invalidItems === 0) break;
        }
      }
    }
    this.suburbs = suburbs;
    this.types = types;
    this.classIds = classIds;
    this.readAt = this.now();
    this.options.log.debug({ suburbs: suburbs.size, types: types.size }, "learnt the CRM's suburbs and property types from its listings");
  }
}

function key(name: string): string {
  return name.trim().replace(/\s+/g, ' ').toLowerCase();
}
