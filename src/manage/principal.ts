// Who calls the management API. Operator keys (and the node's local operator credential) are
// principals today; a dashboard user (issue 20) becomes one through a `SessionResolver`, so
// the routes never change: they only ever see a ManagePrincipal.
import { ProblemError } from '../http/problem.js';
import type { RequestContext } from '../http/route.js';
import type { MembersStore } from '../tenancy/members-store.js';
import type { OperatorKeysStore } from '../tenancy/operator-keys-store.js';
import type { TenantRole } from '../tenancy/types.js';
import { MANAGE_REALM } from './local-admin-routes.js';

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

/** A signed-in dashboard user behind a request (issue 20: a session cookie), or null. */
export type SessionResolver = (ctx: RequestContext) => Promise<{ userId: string; email: string } | null>;

export interface ManageAuthOptions {
  operatorKeys: OperatorKeysStore;
  members: MembersStore;
  /** Lower-cased e-mail addresses of platform operators (DOCPARSE_OPERATOR_EMAILS). */
  operatorEmails: readonly string[];
  /** The node's local operator credential (data dir), when it has one. */
  localCredential?: () => { matches(secret: string): boolean } | null;
  sessions?: SessionResolver;
}

const BEARER = /^bearer[ \t]+(\S+)[ \t]*$/i;

export const manageProblems = {
  missingCredentials: () =>
    new ProblemError(401, 'missing_credentials', 'Credentials required', 'Send an operator API key as "Authorization: Bearer dp_op_…".', {}, {
      'WWW-Authenticate': `Bearer realm="${MANAGE_REALM}"`,
    }),
  invalidCredentials: () =>
    new ProblemError(401, 'invalid_credentials', 'Invalid credentials', 'The credentials are not valid (unknown or revoked operator key).', {}, {
      'WWW-Authenticate': `Bearer realm="${MANAGE_REALM}", error="invalid_token"`,
    }),
};

export type ManageAuthenticator = (ctx: RequestContext) => Promise<ManagePrincipal>;

export function createManageAuthenticator(opts: ManageAuthOptions): ManageAuthenticator {
  const operatorEmails = new Set(opts.operatorEmails.map((e) => e.toLowerCase()));
  return async (ctx) => {
    const header = ctx.headers.authorization;
    if (header === undefined) {
      const session = opts.sessions ? await opts.sessions(ctx) : null;
      if (!session) throw manageProblems.missingCredentials();
      const email = session.email.toLowerCase();
      const isOperator = operatorEmails.has(email);
      return { kind: isOperator ? 'operator' : 'user', id: session.userId, userId: session.userId, email, tenantRoles: await opts.members.rolesOf(email), isOperator };
    }
    const m = BEARER.exec(header.trim());
    if (!m) throw manageProblems.invalidCredentials();
    const presented = m[1];
    const key = await opts.operatorKeys.verify(presented);
    if (key) return { kind: 'operator', id: `operator-key:${key.id}`, tenantRoles: new Map(), isOperator: true };
    if (opts.localCredential?.()?.matches(presented)) return { kind: 'operator', id: 'local-operator', tenantRoles: new Map(), isOperator: true };
    throw manageProblems.invalidCredentials();
  };
}
