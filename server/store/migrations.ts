/**
 * Versioned schema changes, applied once each, in this order, inside a transaction.
 * Append only: never edit a migration that has shipped; add a new one.
 * Ids are `<number>-<concern>-<what>` so a reader sees which folder owns a table.
 */
export interface Migration {
  id: string;
  sql: string;
}

export const migrations: Migration[] = [
  {
    id: '001-crm-budget',
    sql: `
      -- Upstream requests spent per UTC day, so a restart does not forget the day's spending.
      CREATE TABLE crm_budget (
        day TEXT PRIMARY KEY,          -- YYYY-MM-DD, UTC
        used INTEGER NOT NULL DEFAULT 0
      ) STRICT;
    `,
  },
  {
    id: '010-enquiries-outbox',
    sql: `
      -- Accepted enquiries waiting for, or past, delivery to the CRM (server/enquiries/outbox.ts).
      -- Times are milliseconds since the epoch (UTC).
      CREATE TABLE enquiry_outbox (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,   -- acceptance order = delivery order
        original_id TEXT NOT NULL UNIQUE,        -- the widget's UUID: the idempotency key
        fingerprint TEXT NOT NULL,               -- sha256 of the canonical enquiry: same id + other body = 409
        status TEXT NOT NULL CHECK (status IN ('queued', 'delivered', 'dead', 'spam')),
        spam_reason TEXT,                        -- honeypot | too_fast (spam rows hold no personal data)
        accepted_at INTEGER NOT NULL,
        listing_id INTEGER,
        agent_id INTEGER,
        sale_life_id INTEGER,
        lease_life_id INTEGER,
        user_id INTEGER,
        property_reference TEXT,                 -- life ids, user id and reference: resolved at acceptance, or before delivery
        payload TEXT,                            -- the validated enquiry as JSON (personal data); NULL once erased
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER NOT NULL DEFAULT 0,
        window_start INTEGER NOT NULL,           -- start of the retry window (acceptance, or an operator's retry)
        sending_since INTEGER,                   -- set before a POST, cleared once its outcome is known
        last_error TEXT,
        delivered_at INTEGER,
        crm_enquiry_id INTEGER,
        found_by_reconcile INTEGER NOT NULL DEFAULT 0,
        dead_at INTEGER,
        erased_at INTEGER
      ) STRICT;
      CREATE INDEX enquiry_outbox_due ON enquiry_outbox (status, next_attempt_at, seq);
      CREATE INDEX enquiry_outbox_delivered ON enquiry_outbox (delivered_at) WHERE payload IS NOT NULL;
    `,
  },
  {
    id: '020-listings-cache',
    sql: `
      -- The listing cache the public API answers from (server/listings/). Times are ms since the epoch.
      CREATE TABLE listings (
        id INTEGER PRIMARY KEY,                  -- the CRM property id: the public listing id
        source TEXT NOT NULL,                    -- the CRM list it came from, e.g. residential/sale/available
        type TEXT NOT NULL CHECK (type IN ('sale', 'lease')),
        status TEXT NOT NULL CHECK (status IN ('available', 'sold', 'leased')),
        sale_life_id INTEGER,
        lease_life_id INTEGER,
        reference TEXT,
        crm_modified TEXT,                       -- the CRM's modified as sent: the change marker
        inserted_at INTEGER,
        modified_at INTEGER,
        suburb TEXT COLLATE NOCASE,
        property_type TEXT COLLATE NOCASE,
        search_price REAL,                       -- filters and sorting only: never leaves the relay
        bed INTEGER,
        bath INTEGER,
        cars INTEGER,
        land_area_sqm REAL,
        public_json TEXT NOT NULL,               -- allow-listed public fields, built field by field
        seen_sweep INTEGER NOT NULL DEFAULT 0,   -- the last full sweep that saw it in its list
        synced_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX listings_status_type ON listings (status, type, inserted_at);
      CREATE INDEX listings_source_sweep ON listings (source, seen_sweep);
      CREATE TABLE listing_agents (
        listing_id INTEGER NOT NULL REFERENCES listings (id) ON DELETE CASCADE,
        agent_id INTEGER NOT NULL,
        position INTEGER NOT NULL,
        PRIMARY KEY (listing_id, agent_id)
      ) STRICT;
      CREATE INDEX listing_agents_agent ON listing_agents (agent_id);
      -- Staff. Only show_on_web = 1 rows are ever answered.
      CREATE TABLE agents (
        id INTEGER PRIMARY KEY,
        show_on_web INTEGER NOT NULL,
        public_json TEXT NOT NULL,
        synced_at INTEGER NOT NULL
      ) STRICT;
      -- Upcoming open homes; no foreign key: they may arrive before their listing.
      CREATE TABLE open_homes (
        id INTEGER PRIMARY KEY,
        listing_id INTEGER NOT NULL,
        starts_at TEXT NOT NULL,
        ends_at TEXT NOT NULL
      ) STRICT;
      CREATE INDEX open_homes_listing ON open_homes (listing_id, starts_at);
      -- Sync bookkeeping: last runs, sweep counter, last error.
      CREATE TABLE listing_sync_state (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      ) STRICT;
    `,
  },
  {
    id: '030-photos-mirror',
    sql: `
      -- Downloaded images, by content hash (server/photos/). Variant files live in DATA_DIR/photos.
      CREATE TABLE photo_files (
        hash TEXT PRIMARY KEY,                   -- sha256 of the downloaded bytes (hex, 32 chars)
        width INTEGER NOT NULL,
        height INTEGER NOT NULL,
        widths TEXT NOT NULL,                    -- JSON array of the variant widths made
        created_at INTEGER NOT NULL
      ) STRICT;
      -- Which image each listing photo, floorplan and agent portrait shows.
      CREATE TABLE photos (
        owner_kind TEXT NOT NULL CHECK (owner_kind IN ('listing', 'agent')),
        owner_id INTEGER NOT NULL,
        photo_id INTEGER NOT NULL,               -- the CRM photo id (0 for an agent portrait)
        kind TEXT NOT NULL CHECK (kind IN ('photograph', 'floorplan', 'portrait')),
        position INTEGER NOT NULL,
        caption TEXT,
        source_url TEXT NOT NULL,
        source_modified TEXT,                    -- the CRM's modified: a new value means download again
        hash TEXT REFERENCES photo_files (hash), -- null until downloaded
        error TEXT,
        attempts INTEGER NOT NULL DEFAULT 0,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (owner_kind, owner_id, photo_id)
      ) STRICT;
      CREATE INDEX photos_hash ON photos (hash);
    `,
  },
  {
    id: '021-listings-price-bands',
    sql: `
      -- Price filters and sorting see a withheld price only as its band (server/listings/price-range.ts):
      -- the exact searchPrice is no longer stored. Cents, inclusive; high NULL with a low: the open top band.
      ALTER TABLE listings ADD COLUMN price_low_cents INTEGER;
      ALTER TABLE listings ADD COLUMN price_high_cents INTEGER;
      ALTER TABLE listings DROP COLUMN search_price;
      -- Every listing is written again by the next sync, which is made a full sweep.
      UPDATE listings SET crm_modified = NULL;
      DELETE FROM listing_sync_state WHERE key = 'lastFullSweepAt';
    `,
  },
  {
    id: '040-listings-one-per-life',
    sql: `
      -- A property listed for sale and for lease at once, or sold twice within the showcase window,
      -- is one listing per sale or lease life, not one row per property (server/listings/). The
      -- cache is migrated in place, so no photo is fetched again: each row gets the id of its life
      -- (see listingId in server/crm/public-fields.ts), and the rows keyed on it follow.
      CREATE TABLE listings_by_life (
        id INTEGER PRIMARY KEY,                  -- the public listing id: 2 × sale life id, or 2 × lease life id + 1
        property_id INTEGER NOT NULL,            -- the CRM property: photos, webhooks and old links name it
        source TEXT NOT NULL,
        type TEXT NOT NULL CHECK (type IN ('sale', 'lease')),
        status TEXT NOT NULL CHECK (status IN ('available', 'sold', 'leased')),
        sale_life_id INTEGER,
        lease_life_id INTEGER,
        reference TEXT,
        crm_modified TEXT,
        inserted_at INTEGER,
        modified_at INTEGER,
        suburb TEXT COLLATE NOCASE,
        property_type TEXT COLLATE NOCASE,
        price_low_cents INTEGER,
        price_high_cents INTEGER,
        bed INTEGER,
        bath INTEGER,
        cars INTEGER,
        land_area_sqm REAL,
        public_json TEXT NOT NULL,
        seen_sweep INTEGER NOT NULL DEFAULT 0,
        synced_at INTEGER NOT NULL
      ) STRICT;
      INSERT INTO listings_by_life
        SELECT CASE
                 WHEN type = 'sale' AND sale_life_id IS NOT NULL THEN sale_life_id * 2
                 WHEN type = 'lease' AND lease_life_id IS NOT NULL THEN lease_life_id * 2 + 1
                 ELSE id * 2 + (type = 'lease')
               END,
               id, source, type, status, sale_life_id, lease_life_id, reference, crm_modified, inserted_at, modified_at,
               suburb, property_type, price_low_cents, price_high_cents, bed, bath, cars, land_area_sqm,
               json_set(public_json, '$.id', CASE
                 WHEN type = 'sale' AND sale_life_id IS NOT NULL THEN sale_life_id * 2
                 WHEN type = 'lease' AND lease_life_id IS NOT NULL THEN lease_life_id * 2 + 1
                 ELSE id * 2 + (type = 'lease')
               END),
               seen_sweep, synced_at
        FROM listings;
      CREATE TABLE listing_agents_by_life (
        listing_id INTEGER NOT NULL REFERENCES listings_by_life (id) ON DELETE CASCADE,
        agent_id INTEGER NOT NULL,
        position INTEGER NOT NULL,
        PRIMARY KEY (listing_id, agent_id)
      ) STRICT;
      INSERT INTO listing_agents_by_life
        SELECT l.id, a.agent_id, a.position FROM listing_agents a JOIN listings_by_life l ON l.property_id = a.listing_id;
      -- Through negative ids, so an old owner id never meets a new one mid-update.
      DELETE FROM photos WHERE owner_kind = 'listing' AND owner_id NOT IN (SELECT property_id FROM listings_by_life);
      UPDATE photos SET owner_id = -owner_id WHERE owner_kind = 'listing';
      UPDATE photos SET owner_id = (SELECT l.id FROM listings_by_life l WHERE l.property_id = -photos.owner_id)
        WHERE owner_kind = 'listing';
      -- Open homes name the listing's life now; they are read again at the next sync.
      DELETE FROM open_homes;
      DROP TABLE listing_agents;
      DROP TABLE listings;
      ALTER TABLE listings_by_life RENAME TO listings;
      ALTER TABLE listing_agents_by_life RENAME TO listing_agents;
      CREATE INDEX listings_status_type ON listings (status, type, inserted_at);
      CREATE INDEX listings_source_sweep ON listings (source, seen_sweep);
      CREATE INDEX listings_property ON listings (property_id);
      CREATE INDEX listing_agents_agent ON listing_agents (agent_id);
    `,
  },
  {
    id: '050-crm-access',
    sql: `
      -- What the CRM key and token allow, and the key's day's usage as the CRM counts it
      -- (server/crm/access.ts): read by /readyz and the status CLI. One JSON value per key.
      CREATE TABLE crm_access (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      ) STRICT;
    `,
  },
  {
    id: '060-listings-crm-events',
    sql: `
      -- The CRM's push (server/listings/event-store.ts). Times are ms since the epoch.
      -- Verified webhook digests, kept until their timestamp leaves the tolerance: a replay is refused.
      CREATE TABLE crm_webhook_digests (
        digest TEXT PRIMARY KEY,                 -- hex HMAC-SHA512 of the delivery, as verified
        expires_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX crm_webhook_digests_expiry ON crm_webhook_digests (expires_at);
      -- Change notices (webhook or event stream) stored before the webhook's 2xx, deleted once applied.
      CREATE TABLE crm_change_queue (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        origin TEXT NOT NULL CHECK (origin IN ('webhook', 'stream')),
        kind TEXT NOT NULL CHECK (kind IN ('listing', 'staff')),
        object_id INTEGER NOT NULL,
        name TEXT NOT NULL,                      -- the CRM's event name, e.g. property.update
        changed_at INTEGER NOT NULL,
        received_at INTEGER NOT NULL,
        records TEXT,                            -- JSON records pushed with the event (checked); NULL when none
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER NOT NULL DEFAULT 0
      ) STRICT;
      -- The latest change (CRM event time) applied per record: stream events before it are skipped,
      -- and of those at that very time (the CRM dates events to the second) as many as were applied.
      CREATE TABLE crm_change_applied (
        kind TEXT NOT NULL,
        object_id INTEGER NOT NULL,
        applied_at INTEGER NOT NULL,
        events INTEGER NOT NULL DEFAULT 1,       -- notices applied whose time is applied_at
        PRIMARY KEY (kind, object_id)
      ) STRICT;
      -- The latest event time the stream named per record, and how many of its events had that time.
      CREATE TABLE crm_stream_seen (
        kind TEXT NOT NULL,
        object_id INTEGER NOT NULL,
        seen_at INTEGER NOT NULL,
        events INTEGER NOT NULL,
        PRIMARY KEY (kind, object_id)
      ) STRICT;
      -- Event-stream position and counters: cursor, last read, the day's webhook-triggered requests.
      CREATE TABLE crm_event_stream_state (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      ) STRICT;
    `,
  },
  {
    id: '070-enquiries-destination',
    sql: `
      -- Where to deliver an enquiry, as JSON in the form the lead sink defines (server/enquiries/sink.ts;
      -- for the CRM: sale or lease life, user, reference), instead of one column per CRM field.
      -- NULL until resolved. Every existing row keeps its resolved ids: no lead is lost or re-routed.
      ALTER TABLE enquiry_outbox ADD COLUMN destination TEXT;
      UPDATE enquiry_outbox
        SET destination = json_object('saleLifeId', sale_life_id, 'leaseLifeId', lease_life_id, 'userId', user_id, 'propertyReference', property_reference)
        WHERE sale_life_id IS NOT NULL OR lease_life_id IS NOT NULL OR user_id IS NOT NULL OR property_reference IS NOT NULL;
      ALTER TABLE enquiry_outbox DROP COLUMN sale_life_id;
      ALTER TABLE enquiry_outbox DROP COLUMN lease_life_id;
      ALTER TABLE enquiry_outbox DROP COLUMN user_id;
      ALTER TABLE enquiry_outbox DROP COLUMN property_reference;
    `,
  },
  {
    id: '080-pages-published',
    sql: `
      -- Listing pages the relay has published (server/pages): an id that was once a page and has
      -- left the cache answers 410 Gone with links to current listings, not a bare 404.
      CREATE TABLE pages_published (
        listing_id INTEGER PRIMARY KEY,
        path TEXT NOT NULL,                     -- the page's path on the agency site when last seen
        first_seen_at INTEGER NOT NULL,
        last_seen_at INTEGER NOT NULL,
        gone_at INTEGER                         -- when it left the cache; NULL while current
      ) STRICT;
    `,
  },
  {
    id: '090-enquiries-outbox-claims',
    sql: `
      -- Which delivery worker holds a queued enquiry, and until when (server/enquiries/outbox.ts):
      -- the same claim and lease a PostgreSQL outbox shared by several relays needs.
      ALTER TABLE enquiry_outbox ADD COLUMN claimed_by TEXT;
      ALTER TABLE enquiry_outbox ADD COLUMN claim_until INTEGER;
    `,
  },
  {
    id: '100-listings-lead-destination',
    sql: `
      -- Where an enquiry about a listing or an agent goes: one opaque token the CRM adapter makes and
      -- its lead sink reads (server/crm/lead-destination.ts), instead of the CRM's life ids in the
      -- cache. Existing rows get the token the adapter would make (the JSON the outbox has stored
      -- since 070), so enquiries keep resolving before the next sync rewrites them. Only the life of
      -- the listing's own type: a sale enquiry must not land on the property's lease.
      ALTER TABLE listings ADD COLUMN lead_destination TEXT;
      UPDATE listings SET lead_destination = CASE
          WHEN type = 'sale' AND sale_life_id IS NOT NULL THEN json_object('saleLifeId', sale_life_id, 'propertyReference', reference)
          WHEN type = 'lease' AND lease_life_id IS NOT NULL THEN json_object('leaseLifeId', lease_life_id, 'propertyReference', reference)
        END;
      ALTER TABLE listings DROP COLUMN sale_life_id;
      ALTER TABLE listings DROP COLUMN lease_life_id;
      -- A contact-me enquiry goes to the CRM user the agent is.
      ALTER TABLE agents ADD COLUMN lead_destination TEXT;
      UPDATE agents SET lead_destination = json_object('userId', id);
    `,
  },
  {
    id: '110-places-geocoder',
    sql: `
      -- Where listings are on a map (server/places/). Times are ms since the epoch.
      -- Every geocoder answer, found or not, by normalised query: a restart or a re-sync never asks again.
      -- In the relay's own store (with AGENCIES_FILE the key-wide one): one cache for every agency.
      CREATE TABLE places_geocodes (
        query_key TEXT PRIMARY KEY,              -- 'address|…' or 'suburb|…', lower case, spaces collapsed
        lat REAL,                                -- NULL with lng: the geocoder found nothing
        lng REAL,
        asked_at INTEGER NOT NULL
      ) STRICT;
      -- Each cached listing's place (as the agency lets it be known) and its position.
      CREATE TABLE places_listings (
        listing_id INTEGER PRIMARY KEY,
        place_json TEXT NOT NULL,                -- the ListingPlace the sync wrote (street only when shown)
        lat REAL,
        lng REAL,
        precision TEXT CHECK (precision IN ('crm', 'address', 'suburb')),
        pending INTEGER NOT NULL DEFAULT 1,      -- 1: a geocoder answer is still needed
        updated_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX places_listings_pending ON places_listings (pending) WHERE pending = 1;
    `,
  },
  {
    id: '111-listings-rewrite-for-places',
    sql: `
      -- Listings cached before the places module learn their place when written again: the next
      -- sync is a full sweep that rewrites every listing (as 021 did).
      UPDATE listings SET crm_modified = NULL;
      DELETE FROM listing_sync_state WHERE key = 'lastFullSweepAt';
    `,
  },
  {
    id: '120-enquiries-once-key',
    sql: `
      -- A lead sent once per person and occasion (an open-home registration: the open home and the
      -- e-mail address, as a SHA-256 digest; server/enquiries/schema.ts onceKey). Two rows never hold
      -- the same key: a second registration under another originalId is answered, not forwarded.
      ALTER TABLE enquiry_outbox ADD COLUMN once_key TEXT;
      CREATE UNIQUE INDEX enquiry_outbox_once ON enquiry_outbox (once_key) WHERE once_key IS NOT NULL;
    `,
  },
  {
    id: '130-saved-searches',
    sql: `
      -- Saved searches on their way into the CRM as a contact with a requirement (server/saved-searches/):
      -- accepted with a 202, worked one committed step at a time. Times are ms since the epoch.
      CREATE TABLE saved_searches (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        original_id TEXT NOT NULL UNIQUE,
        fingerprint TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('queued', 'saved', 'dead', 'spam')),
        spam_reason TEXT,
        accepted_at INTEGER NOT NULL,
        address_key TEXT,                         -- sha-256 of the lower-cased e-mail address; NULL for spam and once erased
        payload TEXT,                             -- the visitor's name, e-mail, mobile, consent and search (JSON); NULL for spam and once erased
        step TEXT NOT NULL CHECK (step IN ('person', 'search', 'lists', 'note', 'done')),
        person_id INTEGER,                          -- the CRM's contact
        search_id INTEGER,                          -- the CRM's requirement: one per saved search
        note_id INTEGER,                            -- the holding-area enquiry, when one is left
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER NOT NULL,
        window_start INTEGER NOT NULL,
        writing_since INTEGER,                      -- a creating write of the current step may be in the CRM: look before writing again
        last_error TEXT,
        saved_at INTEGER,
        dead_at INTEGER,
        erased_at INTEGER,
        claimed_by TEXT,
        claim_until INTEGER
      ) STRICT;
      CREATE INDEX saved_searches_due ON saved_searches (status, next_attempt_at, seq);
      CREATE INDEX saved_searches_person ON saved_searches (person_id) WHERE search_id IS NOT NULL;
      -- One saved search at a time per e-mail address, whichever relay works it (saved-searches/store.ts claimAddress).
      CREATE TABLE saved_search_address_claims (
        address_key TEXT PRIMARY KEY,
        holder TEXT NOT NULL,                     -- the originalId of the saved search holding it
        claim_until INTEGER NOT NULL
      ) STRICT;
    `,
  },
  {
    id: '140-listings-rewrite-for-plain-text',
    sql: `
      -- The relay now decodes every named entity the elements used to decode again (accented
      -- letters, fractions: server/crm/plain-text.ts), and the elements no longer do: listings
      -- cached before keep such entities as written until written again, so the next sync is a
      -- full sweep that rewrites every listing (as 111 did).
      UPDATE listings SET crm_modified = NULL;
      DELETE FROM listing_sync_state WHERE key = 'lastFullSweepAt';
    `,
  },
  {
    id: '160-enquiries-intent-and-keyed-digests',
    sql: `
      -- One lead per intent (server/enquiries/lead-keys.ts intentKey): the same person, kind, listing
      -- (or agent, or address) and message sent again within a day under a new originalId is one lead.
      -- The key is a keyed digest (HMAC-SHA-256 with the relay's secret below), unique among the rows
      -- that have one; it is cleared on erasure, and by a submission a day later that takes it over.
      ALTER TABLE enquiry_outbox ADD COLUMN intent_key TEXT;
      CREATE UNIQUE INDEX enquiry_outbox_intent ON enquiry_outbox (intent_key) WHERE intent_key IS NOT NULL;
      -- A submission found to be the same intent as a lead already taken: its own originalId, the
      -- lead it is one with (whose status it reads), and its keyed fingerprint. No personal data.
      CREATE TABLE enquiry_repeats (
        original_id TEXT PRIMARY KEY,
        same_as TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        accepted_at INTEGER NOT NULL
      ) STRICT;
      -- The relay's own secrets (server/store/relay-secrets.ts): made once, never logged. The store
      -- file is the owner's alone (0600), as is every copy of it the relay makes.
      CREATE TABLE relay_secrets (
        name TEXT PRIMARY KEY,
        secret TEXT NOT NULL,
        created_at INTEGER NOT NULL
      ) STRICT;
      -- Once keys used to be plain SHA-256 of the address and stayed after erasure: an erased row's
      -- is dropped now (erasure drops it from here on); the rest are keyed when the outbox first
      -- opens with the secret (EnquiryOutbox.keys), as are the fingerprints.
      UPDATE enquiry_outbox SET once_key = NULL WHERE payload IS NULL;
    `,
  },
  {
    id: '200-saved-searches-intent-and-keyed-digests',
    sql: `
      -- One saved search per intent (server/saved-searches/store.ts accept): the same e-mail address
      -- and the same search (normalised) sent again within a day under a new originalId is one. The
      -- key is a keyed digest (HMAC-SHA-256 with the relay's secret, relay_secrets of migration 160),
      -- unique among the rows that have one; cleared on erasure, and by a submission a day later.
      ALTER TABLE saved_searches ADD COLUMN intent_key TEXT;
      CREATE UNIQUE INDEX saved_searches_intent ON saved_searches (intent_key) WHERE intent_key IS NOT NULL;
      -- A submission found to be the same intent as a saved search already taken: its own
      -- originalId, the one it is one with (whose status it reads), its keyed fingerprint. No personal data.
      CREATE TABLE saved_search_repeats (
        original_id TEXT PRIMARY KEY,
        same_as TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        accepted_at INTEGER NOT NULL
      ) STRICT;
      -- address_key and fingerprint used to be plain SHA-256 (of the address; of the submission, the
      -- address in it): erased rows' address keys were already cleared; the rest, and the address
      -- claims, are keyed when the store first opens with the secret (SavedSearchStore.keys).
      UPDATE saved_searches SET address_key = NULL WHERE payload IS NULL;
    `,
  },
  {
    id: '190-places-recheck-answers',
    sql: `
      -- Geocoder answers are now checked (server/places/): queries name a country (the record's, else
      -- the agency's SITE_COUNTRY), an answer must lie in it, and a street within 30 km of its
      -- suburb. The found answers kept before were never checked: they are forgotten, so each is
      -- asked again with its country (the "not found" ones stand), and the listings placed from them
      -- wait for the places worker, keeping their position until it has the checked answer.
      DELETE FROM places_geocodes WHERE lat IS NOT NULL;
      UPDATE places_listings SET pending = 1 WHERE precision IN ('address', 'suburb');
    `,
  },
  {
    id: '210-saved-searches-confirmation',
    sql: `
      -- Double opt-in (server/saved-searches/confirmation.ts): a saved search waits, 'unconfirmed', until
      -- the address's owner follows the link the relay e-mailed them (or, with agent confirmation, goes
      -- on at once for an agent to confirm); it is 'expired' (and erased) when the link lapses, and
      -- 'unsubscribed' when the CRM's contact had unsubscribed (never re-subscribed). Its consent
      -- record is kept beside it: on which page, with which words (accepted_at: when), confirmed
      -- when. A new step, 'consent', leaves that record on the contact. The status and step CHECKs
      -- change, so the table is rebuilt (SQLite cannot alter a CHECK); rows keep their seq.
      CREATE TABLE saved_searches_new (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        original_id TEXT NOT NULL UNIQUE,
        fingerprint TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('queued', 'saved', 'dead', 'spam', 'unconfirmed', 'expired', 'unsubscribed')),
        spam_reason TEXT,
        accepted_at INTEGER NOT NULL,
        address_key TEXT,
        payload TEXT,
        step TEXT NOT NULL CHECK (step IN ('person', 'search', 'lists', 'consent', 'note', 'done')),
        person_id INTEGER,
        search_id INTEGER,
        note_id INTEGER,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER NOT NULL,
        window_start INTEGER NOT NULL,
        writing_since INTEGER,
        last_error TEXT,
        saved_at INTEGER,
        dead_at INTEGER,
        erased_at INTEGER,
        claimed_by TEXT,
        claim_until INTEGER,
        intent_key TEXT,
        confirmation TEXT CHECK (confirmation IN ('email', 'agent')), -- NULL: accepted before double opt-in, delivered as then
        confirm_key TEXT,                           -- sha-256 of the e-mailed link's token; cleared on erasure
        expires_at INTEGER,                         -- an unconfirmed one is erased from then
        mail_due_at INTEGER,                        -- the confirmation e-mail is (re)sent from then; NULL: none due
        mail_attempts INTEGER NOT NULL DEFAULT 0,
        mail_sent_at INTEGER,
        confirmed_at INTEGER,
        consent_page TEXT,                          -- the page the visitor agreed on (origin and path)
        consent_text TEXT                           -- the consent box's words as the page showed them
      ) STRICT;
      INSERT INTO saved_searches_new (seq, original_id, fingerprint, status, spam_reason, accepted_at, address_key, payload, step,
          person_id, search_id, note_id, attempts, next_attempt_at, window_start, writing_since, last_error, saved_at, dead_at,
          erased_at, claimed_by, claim_until, intent_key)
        SELECT seq, original_id, fingerprint, status, spam_reason, accepted_at, address_key, payload, step, person_id, search_id,
          note_id, attempts, next_attempt_at, window_start, writing_since, last_error, saved_at, dead_at, erased_at, claimed_by,
          claim_until, intent_key
        FROM saved_searches;
      DROP TABLE saved_searches;
      ALTER TABLE saved_searches_new RENAME TO saved_searches;
      CREATE INDEX saved_searches_due ON saved_searches (status, next_attempt_at, seq);
      CREATE INDEX saved_searches_person ON saved_searches (person_id) WHERE search_id IS NOT NULL;
      CREATE UNIQUE INDEX saved_searches_intent ON saved_searches (intent_key) WHERE intent_key IS NOT NULL;
      CREATE UNIQUE INDEX saved_searches_confirm ON saved_searches (confirm_key) WHERE confirm_key IS NOT NULL;
      CREATE INDEX saved_searches_mail_due ON saved_searches (mail_due_at) WHERE mail_due_at IS NOT NULL;
    `,
  },
  {
    id: '220-listings-agents-contact',
    sql: `
      -- The agency's people (issue #31, server/listings/team.ts): an agent's row keeps both ways of
      -- reaching them (office line; own mobile and e-mail, shown only with AGENT_DIRECT_CONTACT), their
      -- cleaned profile, and whether the CRM gives them a public-facing role (public_role; the role
      -- itself is never stored). Rows cached before keep their e-mail and lose their phone until the
      -- next full sweep, which this forces and which reads every staff member again.
      ALTER TABLE agents ADD COLUMN public_role INTEGER NOT NULL DEFAULT 0;
      UPDATE agents SET public_json = json_object(
        'id', id,
        'name', json_extract(public_json, '$.name'),
        'position', json_extract(public_json, '$.position'),
        'officePhone', NULL,
        'mobile', NULL,
        'email', json_extract(public_json, '$.email'),
        'profile', NULL);
      DELETE FROM listing_sync_state WHERE key = 'lastFullSweepAt';
    `,
  },
  {
    id: '221-pages-published-agents',
    sql: `
      -- Agent pages the relay has published (server/pages/published.ts), beside pages_published: an
      -- agent who had a page and has left, or stopped facing the public, answers 410 Gone.
      CREATE TABLE pages_published_agents (
        agent_id INTEGER PRIMARY KEY,
        path TEXT NOT NULL,
        first_seen_at INTEGER NOT NULL,
        last_seen_at INTEGER NOT NULL,
        gone_at INTEGER
      ) STRICT;
    `,
  },
  {
    id: '222-saved-searches-mail-claim',
    sql: `
      -- Who is sending a saved search's confirmation e-mail (server/saved-searches/confirmation.ts): the
      -- queue's owner, set when a pass claims the e-mail, cleared once it is sent or put off. A relay
      -- starting again makes its previous process's unfinished claims due at once, instead of letting
      -- their lease run out.
      ALTER TABLE saved_searches ADD COLUMN mail_claimed_by TEXT;
    `,
  },
  {
    id: '230-listings-shown-price-and-words',
    sql: `
      -- Issue #30: the price sort reads the price as the card shows it (shown_price_cents, cents: a
      -- range by its lower bound; NULL where the card shows no amount), never the CRM's search
      -- price nor its band (server/listings/query.ts); the keyword filter reads each listing's words
      -- (search_text, server/listings/keywords.ts). Both are written with the listing, so the next
      -- sync writes every listing again: it is made a full sweep.
      ALTER TABLE listings ADD COLUMN shown_price_cents INTEGER;
      ALTER TABLE listings ADD COLUMN search_text TEXT;
      UPDATE listings SET crm_modified = NULL;
      DELETE FROM listing_sync_state WHERE key = 'lastFullSweepAt';
    `,
  },
  {
    id: '240-visits-counts',
    sql: `
      -- Issue #32: what happens to each listing on the agency's site, counted without tracking
      -- (server/visits/): events per listing, day (the agency's, YYYY-MM-DD), kind and source (a detail
      -- view's page kind, campaign or shared link; '' for other kinds), and kind 'visitors': a finished
      -- day's estimate of unique visitors. The current day's visitor hashes (a daily salted hash, never
      -- an address or user agent) until the day ends; the day's salt (one row); events dropped by a
      -- full buffer. VISIT_RETENTION_DAYS bounds them all.
      CREATE TABLE visit_counts (
        listing_id INTEGER NOT NULL,
        day TEXT NOT NULL,
        kind TEXT NOT NULL,
        source TEXT NOT NULL,
        count INTEGER NOT NULL,
        PRIMARY KEY (listing_id, day, kind, source)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX visit_counts_day ON visit_counts (day, kind);
      CREATE TABLE visit_visitors (
        day TEXT NOT NULL,
        listing_id INTEGER NOT NULL,
        hash TEXT NOT NULL,
        PRIMARY KEY (day, listing_id, hash)
      ) STRICT, WITHOUT ROWID;
      CREATE TABLE visit_salt (day TEXT PRIMARY KEY, salt TEXT NOT NULL) STRICT;
      CREATE TABLE visit_dropped (day TEXT PRIMARY KEY, count INTEGER NOT NULL) STRICT;
    `,
  },
  {
    id: '250-reports-links',
    sql: `
      -- The seller's report links (server/reports/links.ts): one per listing, its 256-bit token kept
      -- only as its SHA-256 digest (a copy of the store opens no report). Creating a link for a
      -- listing that has one replaces the row: the old token stops working. Times are ms since the epoch.
      CREATE TABLE report_links (
        listing_id INTEGER PRIMARY KEY,
        token_digest TEXT NOT NULL UNIQUE,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        revoked_at INTEGER
      ) STRICT;
    `,
  },
  {
    id: '260-outbox-by-listing',
    sql: `
      -- The seller's report counts a listing's leads by day (server/enquiries/report-counts.ts): by
      -- listing and acceptance time, so a report reads that listing's rows, not the whole outbox.
      CREATE INDEX enquiry_outbox_listing ON enquiry_outbox (listing_id, accepted_at) WHERE listing_id IS NOT NULL;
    `,
  },
];
