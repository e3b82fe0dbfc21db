// Migration 8: signed webhooks. Each app's `whsec_` signing secret, sealed at rest like storage
// credentials (src/crypto/sealed.ts), and the delivery outbox: one row per finished job that
// asked for a callback, written when the job ends, claimed by one node at a time under a lease
// (src/webhooks/delivery-store.ts) and kept with what its attempts got back.
import type { Migration } from './migration.js';

export const webhooksMigration: Migration = {
  version: 8,
  name: 'webhooks: per-app signing secrets (sealed) and the delivery outbox',
  sql: `
CREATE TABLE app_webhook_secrets (
  app_id        text PRIMARY KEY REFERENCES apps(id) ON DELETE CASCADE,
  secret_sealed text NOT NULL,
  rotated_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE webhook_deliveries (
  -- The webhook-id header: the same on every attempt and replay of one job's notification.
  id                text PRIMARY KEY,
  tenant_id         text NOT NULL,
  app_id            text NOT NULL,
  document_id       text NOT NULL,
  generation        text NOT NULL,
  callback_url      text NOT NULL,
  payload           jsonb NOT NULL,
  created_at        timestamptz NOT NULL DEFAULT now(),
  -- Retries stop DOCPARSE_WEBHOOK_MAX_AGE_SECONDS after this (the job's end, or the last replay).
  window_started_at timestamptz NOT NULL DEFAULT now(),
  attempts          integer NOT NULL DEFAULT 0,
  next_attempt_at   timestamptz NOT NULL DEFAULT now(),
  lease_owner       text,
  lease_until       timestamptz,
  last_attempt_at   timestamptz,
  last_status_code  integer,
  last_error        text,
  delivered_at      timestamptz,
  gave_up_at        timestamptz,
  UNIQUE (tenant_id, document_id, generation)
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE delivered_at IS NULL AND gave_up_at IS NULL;
CREATE INDEX webhook_deliveries_created_idx ON webhook_deliveries (created_at);
`,
};
