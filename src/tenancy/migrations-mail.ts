// Migrations 4 and 6: the mail outbox. An e-mail is a row here before it is anything else (written
// in the transaction that decides it, e.g. a tenant becoming Active), so a restart or an SMTP
// outage loses none; the sender (src/mail/sender.ts) claims due rows under a lease and stamps
// them sent once the SMTP server has accepted them.
import type { Migration } from './migration.js';

export const mailOutboxMigration: Migration = {
  version: 4,
  name: 'mail outbox: lifecycle and invitation e-mails, kept until the SMTP server accepts them',
  sql: `
CREATE TABLE mail_outbox (
  id              text PRIMARY KEY,
  -- One message per event (e.g. "tenant T became Active at time X"): enqueueing it twice is a no-op.
  dedupe_key      text NOT NULL UNIQUE,
  template        text NOT NULL,
  params          jsonb NOT NULL DEFAULT '{}',
  recipients      text[] NOT NULL CHECK (cardinality(recipients) > 0),
  tenant_id       text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  attempts        integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  -- A sender owns a row while lease_until is in the future; one that died loses it then.
  lease_owner     text,
  lease_until     timestamptz,
  last_error      text,
  sent_at         timestamptz,
  message_id      text
);
CREATE INDEX mail_outbox_due_idx ON mail_outbox (next_attempt_at) WHERE sent_at IS NULL;
CREATE INDEX mail_outbox_created_idx ON mail_outbox (created_at, id);
`,
};

// Migration 6: an e-mail can be withdrawn before it is sent (its invitation was revoked), and
// the e-mails one address got in the last day are counted at every enqueue (by recipient).
export const mailWithdrawalMigration: Migration = {
  version: 6,
  name: 'mail outbox: e-mails withdrawn unsent; e-mails per recipient counted',
  sql: `
ALTER TABLE mail_outbox ADD COLUMN withdrawn_at timestamptz;
ALTER TABLE mail_outbox ADD CHECK (withdrawn_at IS NULL OR sent_at IS NULL);
DROP INDEX mail_outbox_due_idx;
CREATE INDEX mail_outbox_due_idx ON mail_outbox (next_attempt_at) WHERE sent_at IS NULL AND withdrawn_at IS NULL;
CREATE INDEX mail_outbox_recipients_idx ON mail_outbox USING gin (recipients);
`,
};
