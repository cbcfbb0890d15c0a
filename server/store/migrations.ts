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
];
