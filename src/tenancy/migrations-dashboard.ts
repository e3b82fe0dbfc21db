// Migration 5: who is signed in to the dashboard. Users are keyed by their identity provider's
// (issuer, subject); sessions are server-side so any node serves any session, and only the
// SHA-256 of a cookie's session id is kept (a copy of this table signs nobody in). Sign-in
// requests and one-time links are short-lived single-use secrets, deleted when used.
import type { Migration } from './migration.js';

export const dashboardSessionsMigration: Migration = {
  version: 5,
  name: 'dashboard sign-in: users by (issuer, subject), server-side sessions, OIDC sign-in requests, one-time operator links',
  sql: `
CREATE TABLE dashboard_users (
  id              text PRIMARY KEY,
  issuer          text NOT NULL,
  subject         text NOT NULL,
  -- What tenant membership and DOCPARSE_OPERATOR_EMAILS match; verified by the provider.
  email           text NOT NULL CHECK (email = lower(btrim(email)) AND position('@' IN email) > 1),
  name            text,
  created_at      timestamptz NOT NULL,
  last_sign_in_at timestamptz NOT NULL,
  UNIQUE (issuer, subject)
);
CREATE INDEX dashboard_users_email_idx ON dashboard_users (email);

CREATE TABLE dashboard_sessions (
  id_sha256    text PRIMARY KEY,
  -- A user signed in through the identity provider…
  user_id      text REFERENCES dashboard_users(id) ON DELETE CASCADE,
  -- …or the local operator (one-time link: 'local-operator'; operator key: 'operator-key:<id>').
  operator_id  text,
  created_at   timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  CHECK ((user_id IS NULL) <> (operator_id IS NULL))
);
CREATE INDEX dashboard_sessions_user_idx ON dashboard_sessions (user_id);
CREATE INDEX dashboard_sessions_operator_idx ON dashboard_sessions (operator_id);
CREATE INDEX dashboard_sessions_seen_idx ON dashboard_sessions (last_seen_at);

-- An OIDC sign-in between the redirect to the provider and its callback.
CREATE TABLE dashboard_sign_in_requests (
  state_sha256   text PRIMARY KEY,
  -- The browser that started it (SHA-256 of its sign-in cookie): another browser cannot finish it.
  browser_sha256 text NOT NULL,
  nonce          text NOT NULL,
  code_verifier  text NOT NULL,
  next_path      text NOT NULL,
  expires_at     timestamptz NOT NULL
);
CREATE INDEX dashboard_sign_in_requests_expiry_idx ON dashboard_sign_in_requests (expires_at);

-- A one-time local operator sign-in link, printed at start to the person at the terminal.
CREATE TABLE dashboard_sign_in_links (
  token_sha256 text PRIMARY KEY,
  operator_id  text NOT NULL,
  expires_at   timestamptz NOT NULL
);
`,
};
