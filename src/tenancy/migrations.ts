// Versioned schema migrations for the control plane. Append new entries; never edit an
// applied one. Each migration runs in its own transaction under a PostgreSQL advisory lock,
// so several nodes booting at once apply each version exactly once.
import type { SqlClient } from '../db/sql.js';
import { mailOutboxMigration, mailWithdrawalMigration } from './migrations-mail.js';
import { dashboardSessionsMigration } from './migrations-dashboard.js';
import { storagePresetsMigration } from './migrations-storage.js';
import type { Migration } from './migration.js';

/** Arbitrary constant identifying "docparse control-plane migrations" for pg_advisory_xact_lock. */
export const MIGRATION_LOCK_KEY = 4_242_017_001;

export const migrations: Migration[] = [
  {
    version: 1,
    name: 'control plane: tenants, plans, storage configs, apps, signing keys, usage ledger',
    sql: `
CREATE TABLE tenants (
  id            text PRIMARY KEY,
  name          text NOT NULL CHECK (length(btrim(name)) > 0),
  state         text NOT NULL DEFAULT 'Pending Activation'
                CHECK (state IN ('Pending Activation', 'Active', 'Deactivated')),
  contact_email text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  activated_at  timestamptz
);

CREATE TABLE plans (
  id                           text PRIMARY KEY,
  name                         text NOT NULL CHECK (length(btrim(name)) > 0),
  status                       text NOT NULL DEFAULT 'usable' CHECK (status IN ('usable', 'retired')),
  max_document_units_per_month bigint NOT NULL CHECK (max_document_units_per_month >= 0),
  advanced_pdf_extraction      boolean NOT NULL,
  ocr_pdf_extraction           boolean NOT NULL,
  max_file_size_bytes          bigint NOT NULL CHECK (max_file_size_bytes > 0),
  max_concurrent_jobs          integer NOT NULL CHECK (max_concurrent_jobs > 0),
  max_bytes_per_second         bigint NOT NULL CHECK (max_bytes_per_second > 0),
  created_at                   timestamptz NOT NULL DEFAULT now(),
  retired_at                   timestamptz,
  CHECK ((status = 'retired') = (retired_at IS NOT NULL))
);

CREATE TABLE storage_configs (
  id                       text PRIMARY KEY,
  tenant_id                text NOT NULL REFERENCES tenants(id),
  provider                 text NOT NULL CHECK (provider IN ('s3', 'minio', 'r2', 'gcs-s3', 'wasabi', 'other-s3')),
  endpoint                 text,
  region                   text NOT NULL,
  bucket                   text NOT NULL CHECK (length(bucket) > 0),
  prefix                   text NOT NULL DEFAULT '',
  access_key_id            text NOT NULL,
  secret_access_key_sealed text NOT NULL,
  force_path_style         boolean NOT NULL DEFAULT false,
  created_at               timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX storage_configs_tenant_idx ON storage_configs (tenant_id);

CREATE TABLE apps (
  id                text PRIMARY KEY,
  tenant_id         text NOT NULL REFERENCES tenants(id),
  name              text NOT NULL CHECK (length(btrim(name)) > 0),
  license_region    text,
  client_id         text NOT NULL UNIQUE CHECK (length(client_id) > 0),
  secret_hash       text NOT NULL,
  db_code           text,
  allowed_domains   text[] NOT NULL DEFAULT '{}' CHECK (cardinality(allowed_domains) <= 3),
  enabled           boolean NOT NULL DEFAULT true,
  plan_id           text REFERENCES plans(id),
  storage_config_id text REFERENCES storage_configs(id),
  created_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX apps_tenant_idx ON apps (tenant_id);

CREATE TABLE signing_keys (
  kid                text PRIMARY KEY,
  alg                text NOT NULL CHECK (alg = 'ES256'),
  public_jwk         jsonb NOT NULL,
  private_key_sealed text NOT NULL,
  created_at         timestamptz NOT NULL DEFAULT now(),
  retired_at         timestamptz
);

CREATE TABLE usage_ledger (
  charge_key  text PRIMARY KEY,
  tenant_id   text NOT NULL REFERENCES tenants(id),
  app_id      text NOT NULL REFERENCES apps(id),
  document_id text NOT NULL,
  month       text NOT NULL CHECK (month ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'),
  format      text NOT NULL,
  units       integer NOT NULL CHECK (units >= 0),
  charged_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX usage_ledger_app_month_idx ON usage_ledger (app_id, month);
CREATE INDEX usage_ledger_tenant_month_idx ON usage_ledger (tenant_id, month);
`,
  },
  {
    version: 2,
    name: 'usage holds: Document Units reserved by jobs in progress',
    sql: `
CREATE TABLE usage_holds (
  charge_key  text PRIMARY KEY,
  tenant_id   text NOT NULL REFERENCES tenants(id),
  app_id      text NOT NULL REFERENCES apps(id),
  document_id text NOT NULL,
  month       text NOT NULL CHECK (month ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'),
  units       integer NOT NULL CHECK (units >= 0),
  expires_at  timestamptz NOT NULL
);
CREATE INDEX usage_holds_app_month_idx ON usage_holds (app_id, month);
`,
  },
  {
    version: 3,
    name: 'management: tenant members and invitations, operator API keys, audit log; usage outlives a deleted app',
    sql: `
CREATE TABLE tenant_members (
  tenant_id  text NOT NULL REFERENCES tenants(id),
  email      text NOT NULL CHECK (email = lower(btrim(email)) AND position('@' IN email) > 1),
  role       text NOT NULL CHECK (role IN ('owner', 'member')),
  user_id    text,
  added_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, email)
);
CREATE INDEX tenant_members_email_idx ON tenant_members (email);

-- An invitation by e-mail; the mailer sends the rows whose mailed_at is NULL and stamps them.
CREATE TABLE tenant_invitations (
  id          text PRIMARY KEY,
  tenant_id   text NOT NULL REFERENCES tenants(id),
  email       text NOT NULL CHECK (email = lower(btrim(email)) AND position('@' IN email) > 1),
  role        text NOT NULL CHECK (role IN ('owner', 'member')),
  invited_by  text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  accepted_at timestamptz,
  revoked_at  timestamptz,
  mailed_at   timestamptz
);
CREATE UNIQUE INDEX tenant_invitations_open_idx ON tenant_invitations (tenant_id, email) WHERE accepted_at IS NULL AND revoked_at IS NULL;
CREATE INDEX tenant_invitations_email_idx ON tenant_invitations (email);

CREATE TABLE operator_keys (
  id           text PRIMARY KEY,
  name         text NOT NULL,
  key_sha256   text NOT NULL UNIQUE,
  created_at   timestamptz NOT NULL DEFAULT now(),
  revoked_at   timestamptz,
  last_used_at timestamptz
);

CREATE TABLE audit_log (
  id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at             timestamptz NOT NULL DEFAULT now(),
  actor_kind     text NOT NULL,
  actor_id       text NOT NULL,
  actor_email    text,
  tenant_id      text,
  action         text NOT NULL,
  object_type    text NOT NULL,
  object_id      text,
  diff           jsonb NOT NULL DEFAULT '{}',
  client_address text,
  request_id     text
);
CREATE INDEX audit_log_tenant_idx ON audit_log (tenant_id, id);

-- Billing history stays when an app is deleted: the references become a check at insert
-- time (a charge or hold still needs an existing app, with the same error as before).
ALTER TABLE usage_ledger DROP CONSTRAINT usage_ledger_app_id_fkey;
ALTER TABLE usage_holds DROP CONSTRAINT usage_holds_app_id_fkey;
CREATE FUNCTION usage_app_exists() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM apps WHERE id = NEW.app_id) THEN
    RAISE EXCEPTION 'app % does not exist', NEW.app_id
      USING ERRCODE = 'foreign_key_violation', CONSTRAINT = TG_TABLE_NAME || '_app_id_fkey';
  END IF;
  RETURN NEW;
END
$fn$;
CREATE TRIGGER usage_ledger_app_exists BEFORE INSERT ON usage_ledger FOR EACH ROW EXECUTE FUNCTION usage_app_exists();
CREATE TRIGGER usage_holds_app_exists BEFORE INSERT ON usage_holds FOR EACH ROW EXECUTE FUNCTION usage_app_exists();
`,
  },
  mailOutboxMigration,
  dashboardSessionsMigration,
  mailWithdrawalMigration,
  storagePresetsMigration,
];

/**
 * Applies every pending migration of `list` (default: all), each in its own transaction.
 * Returns the versions applied by this call.
 */
export async function migrate(db: SqlClient, list: Migration[] = migrations): Promise<number[]> {
  checkOrder(list);
  const applied: number[] = [];
  for (const m of list) {
    const didApply = await db.transaction(async (tx) => {
      // Serialises concurrent migrators (other nodes) until this transaction ends.
      await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
      await tx.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version    integer PRIMARY KEY,
        name       text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
      const { rows } = await tx.query<{ version: number }>('SELECT version FROM schema_migrations WHERE version = $1', [m.version]);
      if (rows.length > 0) return false;
      await tx.exec(m.sql);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      return true;
    });
    if (didApply) applied.push(m.version);
  }
  return applied;
}

/** Versions recorded in schema_migrations (empty before the first migrate). */
export async function appliedVersions(db: SqlClient): Promise<number[]> {
  const { rows } = await db.query<{ exists: boolean }>("SELECT to_regclass('schema_migrations') IS NOT NULL AS exists");
  if (!rows[0]?.exists) return [];
  const r = await db.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
  return r.rows.map((x) => Number(x.version));
}

function checkOrder(list: Migration[]): void {
  for (let i = 1; i < list.length; i++) {
    if (list[i].version <= list[i - 1].version) {
      throw new Error(`migrations out of order: version ${list[i].version} follows ${list[i - 1].version}`);
    }
  }
}
