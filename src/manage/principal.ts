// Who calls the management API: operator keys as bearer tokens and dashboard sessions
// (issue 20) through a `SessionResolver` on the public port; the node's local operator
// credential on its loopback listener only (localOperatorAuthenticator). The routes
// never change: they only ever see a ManagePrincipal. A session cookie rides along with every
// request the browser makes, so a state change authenticated by it must also prove it comes
// from the dashboard (the session's CSRF token); a bearer key is never sent implicitly.
// Wrong operator keys are limited per client address with the token endpoint's attempt
// limiter, and counted together wherever they are tried: as Bearer keys here and in the
// dashboard's sign-in form (verifyOperatorKey).
import { timingSafeEqual } from 'node:crypto';
import { problem } from '../http/problem.js';
import { AttemptLimiter, DEFAULT_FAILURE_LIMITS, type FailureLimits } from '../identity/attempt-limiter.js';
import { OAuthError } from '../identity/oauth-errors.js';
import type { RateCounters } from '../jobs/types.js';
import { canonicalEmailOrNull } from '../mail/address.js';
import type { RequestContext } from '../http/route.js';
import type { MembersStore } from '../tenancy/members-store.js';
import type { OperatorKeysStore } from '../tenancy/operator-keys-store.js';
import type { OperatorKey, TenantRole } from '../tenancy/types.js';

/** The `realm` of the management API's Bearer challenges (operator keys, the local operator credential). */
export const MANAGE_REALM = 'docparse-manage';

export interface ManagePrincipal {
  kind: 'operator' | 'user';
  /** Stable id for the audit log: `operator-key:<id>`, `local-operator`, or the user's id. */
  id: string;
  userId?: string;
  email?: string;
  /** The tenants a user belongs to and their role there (empty for operator keys). */
  tenantRoles: Map<string, TenantRole>;
  /** Platform operators see and manage everything. */
  isOperator: boolean;
}

/** The dashboard session behind a request (its session cookie). */
export interface SessionCaller {
  /** The user's id; for a local operator sign-in the operator's (`local-operator`, `operator-key:<id>`). */
  userId: string;
  /** The user's verified e-mail address ('' for a local operator sign-in). */
  email: string;
  /** Signed in as the local operator (one-time link or operator key): a platform operator. */
  operator?: boolean;
  /** The session's CSRF token: a state-changing request must carry it as X-CSRF-Token. */
  csrfToken: string;
}

/** The signed-in dashboard session behind a request, or null. */
export type SessionResolver = (ctx: RequestContext) => Promise<SessionCaller | null>;

export interface ManageAuthOptions {
  operatorKeys: OperatorKeysStore;
  members: MembersStore;
  /** E-mail addresses of platform operators (DOCPARSE_OPERATOR_EMAILS), compared in their canonical form. */
  operatorEmails: readonly string[];
  sessions?: SessionResolver;
}

const BEARER = /^bearer[ \t]+(\S+)[ \t]*$/i;

export const manageProblems = {
  missingCredentials: () =>
    problem(
      'missing_credentials',
      'Send an operator API key as "Authorization: Bearer dp_op_…", or sign in to the dashboard.',
      {},
      {
        'WWW-Authenticate': `Bearer realm="${MANAGE_REALM}"`,
      },
    ),
  invalidCredentials: () =>
    problem(
      'invalid_credentials',
      'The credentials are not valid (unknown or revoked operator key).',
      {},
      {
        'WWW-Authenticate': `Bearer realm="${MANAGE_REALM}", error="invalid_token"`,
      },
    ),
  csrfFailed: () =>
    problem(
      'csrf_failed',
      "A change made with the dashboard's session cookie must carry the session's CSRF token (header X-CSRF-Token, or form field _csrf on dashboard pages).",
    ),
  tooManyWrongKeys: (retryAfter: string) =>
    problem('rate_limited', `Too many wrong operator keys from this address; retry after ${retryAfter} s.`, {}, { 'Retry-After': retryAfter }),
};

/**
 * The attempt limiter's "client" for operator keys (src/identity/attempt-limiter.ts): one for
 * every way a key is tried, so a guesser meets the same counters in the sign-in form and as a
 * Bearer key, with the same limits (10 wrong keys a minute from one address).
 */
const OPERATOR_KEY_CLIENT = 'dashboard operator-key sign-in';

/**
 * An attempt limiter for operator keys on the node's rate counters: the token endpoint's limits
 * per address, but no ceiling for all addresses together — every operator key is tried under
 * one "client", so such a ceiling would let a guesser on many addresses lock every operator
 * out, and it guards nothing: a key is 256 random bits, not a password.
 */
export function operatorKeyAttempts(counters: RateCounters, limits: Partial<FailureLimits> = {}, now: () => number = Date.now): AttemptLimiter {
  return new AttemptLimiter(counters, { ...DEFAULT_FAILURE_LIMITS, perClient: Number.MAX_SAFE_INTEGER, ...limits }, now);
}

/**
 * The live operator key `presented` is, or null for a wrong one (a counted failure). Past the
 * limit for the address, 429 rate_limited with Retry-After, and the key is not even looked at
 * (so the limit is no guessing oracle).
 */
export async function verifyOperatorKey(
  keys: OperatorKeysStore,
  attempts: AttemptLimiter,
  presented: string,
  remoteAddress: string,
): Promise<OperatorKey | null> {
  let slot;
  try {
    slot = await attempts.reserve(OPERATOR_KEY_CLIENT, remoteAddress);
  } catch (err) {
    if (err instanceof OAuthError && err.status === 429) throw manageProblems.tooManyWrongKeys(err.headers['Retry-After'] ?? '60');
    throw err;
  }
  let key;
  try {
    key = await keys.verify(presented);
  } catch (err) {
    // The key was never judged (e.g. the control plane is unreachable): not a failure.
    await slot.release().catch(() => undefined);
    throw err;
  }
  if (key) await slot.release(); // a wrong key keeps its slot: a counted failure
  return key;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Throws 403 csrf_failed unless `presented` is `expected`, compared in constant time. */
export function checkCsrfToken(expected: string, presented: string | undefined): void {
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(presented ?? '', 'utf8');
  // The length of a token is no secret; its bytes are compared without an early exit.
  if (a.length === 0 || a.length !== b.length || !timingSafeEqual(a, b)) throw manageProblems.csrfFailed();
}

/** Operator addresses as sessionPrincipal compares them: canonical (src/mail/address.ts). */
export function operatorEmailSet(operatorEmails: readonly string[]): ReadonlySet<string> {
  return new Set(operatorEmails.map(canonicalEmailOrNull).filter((e): e is string => e !== null));
}

/**
 * The principal a dashboard session stands for (also what the dashboard's pages see). The
 * session's address is compared in its canonical form; one without (a user row from before
 * the address rule) belongs to no tenant and is no operator.
 */
export async function sessionPrincipal(session: SessionCaller, members: MembersStore, operatorEmails: ReadonlySet<string>): Promise<ManagePrincipal> {
  if (session.operator) return { kind: 'operator', id: session.userId, tenantRoles: new Map(), isOperator: true };
  const email = canonicalEmailOrNull(session.email);
  const isOperator = email !== null && operatorEmails.has(email);
  return {
    kind: isOperator ? 'operator' : 'user',
    id: session.userId,
    userId: session.userId,
    email: email ?? session.email,
    tenantRoles: email === null ? new Map() : await members.rolesOf(email),
    isOperator,
  };
}

/**
 * Who makes a management request. `counters` are the node's rate counters (ManageDeps.counters):
 * wrong Bearer keys are counted in them, as the dashboard's sign-in form counts its own.
 */
export type ManageAuthenticator = (ctx: RequestContext, counters: RateCounters) => Promise<ManagePrincipal>;

export function createManageAuthenticator(opts: ManageAuthOptions): ManageAuthenticator {
  const operatorEmails = operatorEmailSet(opts.operatorEmails);
  return async (ctx, counters) => {
    const header = ctx.headers.authorization;
    if (header === undefined) {
      const session = opts.sessions ? await opts.sessions(ctx) : null;
      if (!session) throw manageProblems.missingCredentials();
      if (!SAFE_METHODS.has(ctx.method.toUpperCase())) checkCsrfToken(session.csrfToken, ctx.headers['x-csrf-token']);
      return sessionPrincipal(session, opts.members, operatorEmails);
    }
    const m = BEARER.exec(header.trim());
    const key = await verifyOperatorKey(opts.operatorKeys, operatorKeyAttempts(counters), m ? m[1] : '', ctx.remoteAddress);
    if (key) return { kind: 'operator', id: `operator-key:${key.id}`, tenantRoles: new Map(), isOperator: true };
    throw manageProblems.invalidCredentials();
  };
}

/**
 * Operator keys only, checked as the management API checks them (verifyOperatorKey: the same
 * limit on wrong keys per address): for endpoints that no session or app token opens (/metrics).
 */
export function operatorKeyCheck(operatorKeys: OperatorKeysStore, counters: RateCounters): (ctx: RequestContext) => Promise<void> {
  const attempts = operatorKeyAttempts(counters);
  return async (ctx) => {
    const header = ctx.headers.authorization;
    if (header === undefined)
      throw problem(
        'missing_credentials',
        'Send an operator API key as "Authorization: Bearer dp_op_…".',
        {},
        { 'WWW-Authenticate': `Bearer realm="${MANAGE_REALM}"` },
      );
    const m = BEARER.exec(header.trim());
    if (!(await verifyOperatorKey(operatorKeys, attempts, m ? m[1] : '', ctx.remoteAddress))) throw manageProblems.invalidCredentials();
  };
}

/** The audit log's id for whoever holds the node's data dir (its local credential, its one-time link). */
export const LOCAL_OPERATOR = 'local-operator';

function invalidLocalCredential(detail: string) {
  return problem('invalid_operator_credential', detail, {}, { 'WWW-Authenticate': `Bearer realm="${MANAGE_REALM}"` });
}

/**
 * The loopback listener's only principal: whoever shows the credential the node (or the CLI
 * holding the data dir) made — proof of being able to read the data dir, so an operator.
 * Nothing else opens it: no operator key, no session, no app token.
 */
export function localOperatorAuthenticator(credential: { matches(secret: string): boolean }): ManageAuthenticator {
  const principal: ManagePrincipal = { kind: 'operator', id: LOCAL_OPERATOR, tenantRoles: new Map(), isOperator: true };
  return async (ctx) => {
    const header = ctx.headers.authorization;
    if (header === undefined) throw invalidLocalCredential('Send the operator credential from the data dir as "Authorization: Bearer <credential>".');
    const m = BEARER.exec(header.trim());
    if (!m || !credential.matches(m[1])) throw invalidLocalCredential('The operator credential is not valid (the node makes a new one on every start).');
    return principal;
  };
}
