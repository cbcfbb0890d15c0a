/**
 * The PostgreSQL schema of the shared store (postgres.ts), versioned like migrations.ts: applied
 * once each, in order, append only. Only the tables that have moved to PostgreSQL are here; the
 * rest of the relay's state stays in the SQLite store in DATA_DIR for now. Times are ms since the
 * epoch (BIGINT, read back as numbers), as in SQLite.
 */
import type { Migration } from './migrations.ts';

export const pgMigrations: Migration[] = [
  {
    id: '010-enquiries-outbox',
    sql: `
      -- Accepted enquiries waiting for, or past, delivery (server/enquiries/outbox.ts): the SQLite
      -- table of migrations 010, 070 and 090 in one. Any relay on this database may deliver a row:
      -- a relay claims it (claimed_by, claim_until) and another takes it over once the claim lapses.
      CREATE TABLE enquiry_outbox (
        seq BIGSERIAL PRIMARY KEY,
        original_id TEXT NOT NULL UNIQUE,
        fingerprint TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('queued', 'delivered', 'dead', 'spam')),
        spam_reason TEXT,
        accepted_at BIGINT NOT NULL,
        listing_id BIGINT,
        agent_id BIGINT,
        payload TEXT,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at BIGINT NOT NULL DEFAULT 0,
        window_start BIGINT NOT NULL,
        sending_since BIGINT,
        last_error TEXT,
        delivered_at BIGINT,
        crm_enquiry_id BIGINT,
        found_by_reconcile INTEGER NOT NULL DEFAULT 0,
        dead_at BIGINT,
        erased_at BIGINT,
        destination TEXT,
        claimed_by TEXT,
        claim_until BIGINT
      );
      CREATE INDEX enquiry_outbox_due ON enquiry_outbox (status, next_attempt_at, seq);
      CREATE INDEX enquiry_outbox_delivered ON enquiry_outbox (delivered_at) WHERE payload IS NOT NULL;
    `,
  },
  {
    id: '020-listings-shared-sync',
    sql: `
      -- One sync at a time per agency (server/cluster/sync-lease.ts): the relay named in holder runs
      -- the agency's sync, change worker and access check until expires_at (the database's clock,
      -- ms); it renews well before. epoch grows at each change of holder: a relay that lost the
      -- lease cannot publish once another holds it (the fence).
      CREATE TABLE sync_lease (
        name TEXT PRIMARY KEY,
        holder TEXT NOT NULL,
        epoch BIGINT NOT NULL,
        acquired_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL
      );
      -- The listing cache, photo index and change bookkeeping as the sync holder last published
      -- them (server/cluster/replica.ts): one row per row of the SQLite tables it names, as JSON;
      -- row NULL for a row deleted (kept a while, so relays following by seq see the delete).
      CREATE SEQUENCE replica_seq;
      CREATE TABLE replica_rows (
        tbl TEXT NOT NULL,
        pk TEXT NOT NULL,
        row TEXT,
        seq BIGINT NOT NULL,
        changed_at BIGINT NOT NULL,
        PRIMARY KEY (tbl, pk)
      );
      CREATE INDEX replica_rows_seq ON replica_rows (seq);
      -- Verified CRM webhooks any relay received (server/cluster/webhook-inbox.ts), kept by digest
      -- until their timestamp leaves the tolerance (a replay to any relay is refused); the sync
      -- holder takes the notice (taken_at) into its change queue.
      CREATE TABLE crm_webhook_inbox (
        id BIGSERIAL PRIMARY KEY,
        digest TEXT NOT NULL UNIQUE,
        expires_at BIGINT NOT NULL,
        notice TEXT,
        received_at BIGINT NOT NULL,
        taken_at BIGINT
      );
      CREATE INDEX crm_webhook_inbox_waiting ON crm_webhook_inbox (id) WHERE taken_at IS NULL;
      CREATE INDEX crm_webhook_inbox_expiry ON crm_webhook_inbox (expires_at);
    `,
  },
  {
    id: '030-listings-lead-destination',
    sql: `
      -- The SQLite migration 100 on the rows a sync holder published (replica_rows, as JSON): a
      -- listing's two life id columns become its lead_destination token, and an agent gets one, so a
      -- relay copying them after the upgrade still knows where enquiries go. The token is the CRM
      -- adapter's JSON (server/crm/lead-destination.ts); only the life of the listing's own type.
      UPDATE replica_rows
        SET row = ((row::jsonb - 'sale_life_id' - 'lease_life_id') || jsonb_build_object('lead_destination',
          CASE
            WHEN row::jsonb ->> 'type' = 'sale' AND jsonb_typeof(row::jsonb -> 'sale_life_id') = 'number'
              THEN jsonb_build_object('saleLifeId', row::jsonb -> 'sale_life_id', 'propertyReference', row::jsonb -> 'reference')::text
            WHEN row::jsonb ->> 'type' = 'lease' AND jsonb_typeof(row::jsonb -> 'lease_life_id') = 'number'
              THEN jsonb_build_object('leaseLifeId', row::jsonb -> 'lease_life_id', 'propertyReference', row::jsonb -> 'reference')::text
          END))::text
        WHERE tbl = 'listings' AND row IS NOT NULL AND row::jsonb ? 'sale_life_id';
      UPDATE replica_rows
        SET row = (row::jsonb || jsonb_build_object('lead_destination', jsonb_build_object('userId', row::jsonb -> 'id')::text))::text
        WHERE tbl = 'agents' AND row IS NOT NULL AND NOT row::jsonb ? 'lead_destination';
    `,
  },
  {
    id: '040-listings-replica-guard',
    sql: `
      -- The shape of the SQLite table a published row was read from (server/cluster/replica.ts): a
      -- digest of its columns, their types and foreign keys, written by the publisher. A relay meets
      -- a version it does not have (a relay of another release, mid rolling upgrade) and sets the row
      -- aside instead of applying it. NULL: published before this column; those rows were converted
      -- to the current shape by 030 and are read as the current version (and checked like any row).
      ALTER TABLE replica_rows ADD COLUMN version TEXT;
      -- Each following relay's copy, for the status CLI: when it last held everything published
      -- (caught_up_at, the database's clock) and how many rows it set aside since it started.
      CREATE TABLE replica_copies (
        relay TEXT PRIMARY KEY,
        caught_up_at BIGINT NOT NULL,
        set_aside BIGINT NOT NULL DEFAULT 0,
        updated_at BIGINT NOT NULL
      );
    `,
  },
  {
    id: '050-enquiries-once-key',
    sql: `
      -- The SQLite outbox's migration 120: an open-home registration's once key (a digest of the open
      -- home and the e-mail address), unique among the rows that have one.
      ALTER TABLE enquiry_outbox ADD COLUMN once_key TEXT;
      CREATE UNIQUE INDEX enquiry_outbox_once ON enquiry_outbox (once_key) WHERE once_key IS NOT NULL;
    `,
  },
  {
    id: '060-saved-searches',
    sql: `
      -- Saved searches (server/saved-searches/store.ts): the SQLite tables of migration 130, shared by
      -- the relays on this database (rows claimed as the enquiry outbox's, addresses claimed besides).
      CREATE TABLE saved_searches (
        seq BIGSERIAL PRIMARY KEY,
        original_id TEXT NOT NULL UNIQUE,
        fingerprint TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('queued', 'saved', 'dead', 'spam')),
        spam_reason TEXT,
        accepted_at BIGINT NOT NULL,
        address_key TEXT,                         -- sha-256 of the lower-cased e-mail address; NULL for spam and once erased
        payload TEXT,                             -- the visitor's name, e-mail, mobile, consent and search (JSON); NULL for spam and once erased
        step TEXT NOT NULL CHECK (step IN ('person', 'search', 'lists', 'note', 'done')),
        person_id BIGINT,                          -- the CRM's contact
        search_id BIGINT,                          -- the CRM's requirement: one per saved search
        note_id BIGINT,                            -- the holding-area enquiry, when one is left
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at BIGINT NOT NULL,
        window_start BIGINT NOT NULL,
        writing_since BIGINT,                      -- a creating write of the current step may be in the CRM: look before writing again
        last_error TEXT,
        saved_at BIGINT,
        dead_at BIGINT,
        erased_at BIGINT,
        claimed_by TEXT,
        claim_until BIGINT
      );
      CREATE INDEX saved_searches_due ON saved_searches (status, next_attempt_at, seq);
      CREATE INDEX saved_searches_person ON saved_searches (person_id) WHERE search_id IS NOT NULL;
      -- One saved search at a time per e-mail address, whichever relay works it (saved-searches/store.ts claimAddress).
      CREATE TABLE saved_search_address_claims (
        address_key TEXT PRIMARY KEY,
        holder TEXT NOT NULL,                     -- the originalId of the saved search holding it
        claim_until BIGINT NOT NULL
      );
    `,
  },
  {
    id: '080-enquiries-intent-and-keyed-digests',
    sql: `
      -- The SQLite store's migration 160: the intent key (unique among the rows that have one), the
      -- repeats of a lead already taken, the relay's secrets (shared by every relay on this database,
      -- so all key digests alike), and erased rows' unkeyed once keys dropped.
      ALTER TABLE enquiry_outbox ADD COLUMN intent_key TEXT;
      CREATE UNIQUE INDEX enquiry_outbox_intent ON enquiry_outbox (intent_key) WHERE intent_key IS NOT NULL;
      CREATE TABLE enquiry_repeats (
        original_id TEXT PRIMARY KEY,
        same_as TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        accepted_at BIGINT NOT NULL
      );
      CREATE TABLE relay_secrets (
        name TEXT PRIMARY KEY,
        secret TEXT NOT NULL,
        created_at BIGINT NOT NULL
      );
      UPDATE enquiry_outbox SET once_key = NULL WHERE payload IS NULL;
    `,
  },
  {
    id: '090-saved-searches-intent-and-keyed-digests',
    sql: `
      -- The SQLite store's migration 200: one saved search per intent (a keyed intent key, unique
      -- among the rows that have one), the repeats of one already taken, and erased rows' address
      -- keys dropped (the rest are keyed when the store first opens with the relay's secret).
      ALTER TABLE saved_searches ADD COLUMN intent_key TEXT;
      CREATE UNIQUE INDEX saved_searches_intent ON saved_searches (intent_key) WHERE intent_key IS NOT NULL;
      CREATE TABLE saved_search_repeats (
        original_id TEXT PRIMARY KEY,
        same_as TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        accepted_at BIGINT NOT NULL
      );
      UPDATE saved_searches SET address_key = NULL WHERE payload IS NULL;
    `,
  },
  {
    id: '100-saved-searches-confirmation',
    sql: `
      -- The SQLite store's migration 210: double opt-in (statuses unconfirmed, expired, unsubscribed;
      -- the step consent; the confirmation, the e-mail's state and the consent record beside each row).
      ALTER TABLE saved_searches DROP CONSTRAINT saved_searches_status_check;
      ALTER TABLE saved_searches ADD CONSTRAINT saved_searches_status_check
        CHECK (status IN ('queued', 'saved', 'dead', 'spam', 'unconfirmed', 'expired', 'unsubscribed'));
      ALTER TABLE saved_searches DROP CONSTRAINT saved_searches_step_check;
      ALTER TABLE saved_searches ADD CONSTRAINT saved_searches_step_check CHECK (step IN ('person', 'search', 'lists', 'consent', 'note', 'done'));
      ALTER TABLE saved_searches
        ADD COLUMN confirmation TEXT CHECK (confirmation IN ('email', 'agent')),
        ADD COLUMN confirm_key TEXT,
        ADD COLUMN expires_at BIGINT,
        ADD COLUMN mail_due_at BIGINT,
        ADD COLUMN mail_attempts INTEGER NOT NULL DEFAULT 0,
        ADD COLUMN mail_sent_at BIGINT,
        ADD COLUMN confirmed_at BIGINT,
        ADD COLUMN consent_page TEXT,
        ADD COLUMN consent_text TEXT;
      CREATE UNIQUE INDEX saved_searches_confirm ON saved_searches (confirm_key) WHERE confirm_key IS NOT NULL;
      CREATE INDEX saved_searches_mail_due ON saved_searches (mail_due_at) WHERE mail_due_at IS NOT NULL;
    `,
  },
  {
    id: '110-listings-agents-contact',
    sql: `
      -- The SQLite store's migration 220 on the agents rows a sync holder published (replica_rows, as
      -- JSON): public_role (0 until the holder's next full sweep reads the staff again) and the
      -- public JSON's new shape (the office line and mobile unknown until then, the e-mail kept).
      -- Converted rows are of the current version (NULL, as 030's are).
      UPDATE replica_rows
        SET version = NULL,
          row = (row::jsonb || jsonb_build_object('public_role', 0, 'public_json', jsonb_build_object(
            'id', (row::jsonb ->> 'public_json')::jsonb -> 'id',
            'name', (row::jsonb ->> 'public_json')::jsonb -> 'name',
            'position', (row::jsonb ->> 'public_json')::jsonb -> 'position',
            'officePhone', NULL,
            'mobile', NULL,
            'email', (row::jsonb ->> 'public_json')::jsonb -> 'email',
            'profile', NULL)::text))::text
        WHERE tbl = 'agents' AND row IS NOT NULL AND NOT (row::jsonb ->> 'public_json')::jsonb ? 'officePhone';
    `,
  },
  {
    id: '120-saved-searches-mail-claim',
    sql: `
      -- The SQLite store's migration 222: who is sending a saved search's confirmation e-mail.
      ALTER TABLE saved_searches ADD COLUMN mail_claimed_by TEXT;
    `,
  },
  {
    id: '130-visits-counts',
    sql: `
      -- The SQLite store's migration 240 (server/visits/): per-listing daily counts, the day's visitor
      -- hashes and salt, and dropped events. Every relay on the database adds its flushes to the same
      -- rows, so the counts are the agency's whatever relay took the beacon.
      CREATE TABLE visit_counts (
        listing_id BIGINT NOT NULL,
        day TEXT NOT NULL,
        kind TEXT NOT NULL,
        source TEXT NOT NULL,
        count BIGINT NOT NULL,
        PRIMARY KEY (listing_id, day, kind, source)
      );
      CREATE INDEX visit_counts_day ON visit_counts (day, kind);
      CREATE TABLE visit_visitors (
        day TEXT NOT NULL,
        listing_id BIGINT NOT NULL,
        hash TEXT NOT NULL,
        PRIMARY KEY (day, listing_id, hash)
      );
      CREATE TABLE visit_salt (day TEXT PRIMARY KEY, salt TEXT NOT NULL);
      CREATE TABLE visit_dropped (day TEXT PRIMARY KEY, count BIGINT NOT NULL);
    `,
  },
  {
    id: '140-reports-links',
    sql: `
      -- The SQLite store's migration 250: the seller's report links, one per listing, tokens as digests.
      CREATE TABLE report_links (
        listing_id BIGINT PRIMARY KEY,
        token_digest TEXT NOT NULL UNIQUE,
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL,
        revoked_at BIGINT
      );
    `,
  },
  {
    id: '150-outbox-by-listing',
    sql: `
      -- The SQLite store's migration 260: a listing's leads by acceptance time, for the seller's report.
      CREATE INDEX enquiry_outbox_listing ON enquiry_outbox (listing_id, accepted_at) WHERE listing_id IS NOT NULL;
    `,
  },
];

/**
 * What every relay on an API key shares whatever the agency, in the schema relay_key
 * (shared-database.ts), versioned like pgMigrations. Times are ms since the epoch on the
 * database's clock.
 */
export const pgKeyMigrations: Migration[] = [
  {
    id: '010-crm-gate',
    sql: `
      -- The CRM's per-second limit for every relay on the key (server/cluster/shared-gate.ts): one row
      -- per request that may be in the CRM's hands at once. A relay takes a free row to send, and
      -- on the answer frees it from one second later; a relay that dies frees it at lease_until.
      CREATE TABLE crm_slots (
        key_id TEXT NOT NULL,
        slot INTEGER NOT NULL,
        free_at BIGINT NOT NULL DEFAULT 0,
        holder TEXT,
        take INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (key_id, slot)
      );
      -- Requests sent per UTC day for the key, by every relay.
      CREATE TABLE crm_budget (
        key_id TEXT NOT NULL,
        day TEXT NOT NULL,
        used INTEGER NOT NULL,
        PRIMARY KEY (key_id, day)
      );
      -- Relays seen on this database (server/ops/relays.ts): the heartbeat keeps last_seen fresh.
      CREATE TABLE relays (
        id TEXT PRIMARY KEY,
        host TEXT NOT NULL,
        data_dir TEXT NOT NULL,
        version TEXT NOT NULL,
        started_at BIGINT NOT NULL,
        last_seen BIGINT NOT NULL
      );
    `,
  },
  {
    id: '020-relay-clock-offset',
    sql: `
      -- How far each relay's clock was from the database's at its last heartbeat (ms, positive:
      -- ahead; server/store/shared-database.ts): shared times come from the database's clock, and
      -- "npm run relay -- status" names a relay whose clock is off by more than a few seconds.
      ALTER TABLE relays ADD COLUMN clock_offset_ms BIGINT;
    `,
  },
  {
    id: '030-relay-nonce',
    sql: `
      -- The registry id is the random id in the relay's DATA_DIR (store/relay-identity.ts); nonce is
      -- the process's own (new at every start), NULL once it stopped cleanly, so a second live process
      -- with the same id (a copied DATA_DIR) is refused; pid says which process that is.
      ALTER TABLE relays ADD COLUMN nonce TEXT;
      ALTER TABLE relays ADD COLUMN pid INTEGER;
    `,
  },
  {
    id: '040-geocoder-gate',
    sql: `
      -- The geocoder's rate for every relay on the database (server/cluster/geocoder-gate.ts): one row
      -- per geocoder (geocoder_id, a digest of GEOCODER_URL) holding the next free instant. A relay
      -- takes a turn by moving next_at one interval past max(next_at, now) in one statement, and
      -- sends at the turn's instant, so relays together keep GEOCODER_REQUESTS_PER_SECOND.
      CREATE TABLE geocoder_gate (
        geocoder_id TEXT PRIMARY KEY,
        next_at BIGINT NOT NULL,
        holder TEXT,
        turns BIGINT NOT NULL DEFAULT 0
      );
    `,
  },
];
