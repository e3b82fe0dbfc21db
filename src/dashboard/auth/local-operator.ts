// The local operator's sign-in, so a node with no identity provider configured still has a
// usable dashboard: a one-time link (printed at start to the person at the terminal; it dies
// on use and after 15 minutes) or an operator key (`dp_op_…`, verified by the
// OperatorKeysStore; failed attempts are limited like client secrets at the token endpoint,
// counted with wrong Bearer keys on /manage/v1: verifyOperatorKey).
import { randomBytes } from 'node:crypto';
import { problem } from '../../http/problem.js';
import type { AttemptLimiter, FailureLimits } from '../../identity/attempt-limiter.js';
import type { RateCounters } from '../../jobs/types.js';
import { operatorKeyAttempts, verifyOperatorKey } from '../../manage/principal.js';
import type { OperatorKeysStore } from '../../tenancy/operator-keys-store.js';
import type { SignInStore } from '../../tenancy/sign-in-store.js';
import { sha256Hex } from './sessions.js';

/** The operator id of a one-time link's session (the same id the node's local credential has in the audit log). */
export const LOCAL_OPERATOR_ID = 'local-operator';
export const LINK_TTL_MS = 15 * 60_000;
const LINK_TOKEN = /^[A-Za-z0-9_-]{43}$/;

export interface LocalOperatorOptions {
  store: SignInStore;
  operatorKeys: OperatorKeysStore;
  counters: RateCounters;
  failureLimits?: Partial<FailureLimits>;
  now?: () => number;
}

export const localProblems = {
  deadLink: () =>
    problem(
      'sign_in_link_invalid',
      'This sign-in link is unknown, used already or expired (links work once, for 15 minutes). For a new one run docparse admin sign-in-link where the node runs (or restart it), or sign in with an operator key.',
    ),
  wrongKey: () => problem('invalid_credentials', 'That is not a live operator key (unknown or revoked).'),
};

export class LocalOperatorSignIn {
  private readonly now: () => number;
  private readonly attempts: AttemptLimiter;

  constructor(private readonly opts: LocalOperatorOptions) {
    this.now = opts.now ?? Date.now;
    this.attempts = operatorKeyAttempts(opts.counters, opts.failureLimits, this.now);
  }

  /** A new one-time link's token (the only copy; the store keeps its hash). */
  async createLinkToken(): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await this.opts.store.deleteExpired(this.now());
    await this.opts.store.saveLink({ tokenSha256: sha256Hex(token), operatorId: LOCAL_OPERATOR_ID, expiresAt: this.now() + LINK_TTL_MS });
    return token;
  }

  /** Whether the link would sign in now (without using it). */
  async linkUsable(token: string): Promise<boolean> {
    if (!LINK_TOKEN.test(token)) return false;
    const link = await this.opts.store.findLink(sha256Hex(token));
    return link !== null && link.expiresAt > this.now();
  }

  /** Uses the link up and returns the operator id it signs in; throws 403 sign_in_link_invalid. */
  async useLink(token: string): Promise<string> {
    const link = LINK_TOKEN.test(token) ? await this.opts.store.takeLink(sha256Hex(token)) : null;
    if (!link || link.expiresAt <= this.now()) throw localProblems.deadLink();
    return link.operatorId;
  }

  /** The operator id (`operator-key:<id>`) of a live key; throws 401 invalid_credentials, or 429 once too many attempts failed. */
  async verifyKey(presented: string, remoteAddress: string): Promise<string> {
    const key = await verifyOperatorKey(this.opts.operatorKeys, this.attempts, presented.trim(), remoteAddress);
    if (!key) throw localProblems.wrongKey();
    return `operator-key:${key.id}`;
  }
}
