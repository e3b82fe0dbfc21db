// Dashboard sessions: server-side in the control plane, so any node serves any session and a
// session ended on one node is dead on all. The cookie holds 256 random bits; the table holds
// only their SHA-256. A session ends after `idleMs` without a request and `maxMs` after
// sign-in, whichever comes first; activity is written at most every few seconds, not on every
// request. The CSRF token is an HMAC of the session id: per session, nothing more to store,
// and it reveals nothing about the id.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { RequestContext } from '../../http/route.js';
import { checkCsrfToken, operatorEmailSet, sessionPrincipal, type SessionCaller } from '../../manage/principal.js';
import type { DashboardSessionsStore, SessionOwner, StoredSession } from '../../tenancy/dashboard-sessions-store.js';
import type { MembersStore } from '../../tenancy/members-store.js';
import type { SignedIn } from '../types.js';
import { clearCookie, cookieValues, setCookie, type DashboardCookies } from './cookies.js';

export interface SessionsOptions {
  store: DashboardSessionsStore;
  members: MembersStore;
  /** Addresses of platform operators (DOCPARSE_OPERATOR_EMAILS), compared in their canonical form. */
  operatorEmails: readonly string[];
  cookies: DashboardCookies;
  idleMs: number;
  maxMs: number;
  /** Key of the CSRF tokens' HMAC (derived from the master key: the same on every node). */
  csrfKey: Buffer;
  now?: () => number;
}

/** A live session as one request found it. */
export interface LiveSession {
  idSha256: string;
  csrfToken: string;
  owner: SessionOwner;
  caller: SessionCaller;
  name: string | null;
  createdAt: number;
  lastSeenAt: number;
}

/** 256 bits, base64url: what the session cookie holds. */
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;
/** Session cookies looked at per request (a browser may send a stale one beside the live one). */
const MAX_PRESENTED = 3;

export const sha256Hex = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

export class Sessions {
  private readonly now: () => number;
  private readonly operatorEmails: ReadonlySet<string>;
  /** Activity is recorded when the last record is older than this (a small share of the idle time). */
  private readonly touchEveryMs: number;

  constructor(private readonly opts: SessionsOptions) {
    this.now = opts.now ?? Date.now;
    this.operatorEmails = operatorEmailSet(opts.operatorEmails);
    this.touchEveryMs = Math.min(60_000, Math.floor(opts.idleMs / 20));
  }

  /**
   * Opens a session for `owner` and returns its Set-Cookie. The session the browser presented
   * (if any) is ended: every sign-in gets a new id, so an id planted before sign-in is worthless.
   */
  async open(owner: SessionOwner, ctx: RequestContext): Promise<string> {
    for (const id of this.presentedIds(ctx)) await this.opts.store.deleteSession(sha256Hex(id));
    const now = this.now();
    await this.opts.store.deleteExpired(now - this.opts.idleMs, now - this.opts.maxMs);
    const id = randomBytes(32).toString('base64url');
    await this.opts.store.createSession(sha256Hex(id), owner, now);
    return setCookie(this.opts.cookies.session, id, { secure: this.opts.cookies.secure, maxAgeSeconds: Math.floor(this.opts.maxMs / 1000) });
  }

  /** The live session behind a request, or null (no cookie, unknown, expired, ended, or its operator key revoked). */
  async resolve(ctx: RequestContext): Promise<LiveSession | null> {
    for (const id of this.presentedIds(ctx)) {
      const live = await this.live(id);
      if (live) return live;
    }
    return null;
  }

  /** A live session as the dashboard's pages see it. */
  async signedIn(ctx: RequestContext): Promise<SignedIn | null> {
    const s = await this.resolve(ctx);
    if (!s) return null;
    return {
      sessionId: s.idSha256,
      userId: s.caller.userId,
      email: s.caller.email,
      name: s.name,
      csrfToken: s.csrfToken,
      principal: await sessionPrincipal(s.caller, this.opts.members, this.operatorEmails),
    };
  }

  checkCsrf(session: { csrfToken: string }, presented: string | undefined): void {
    checkCsrfToken(session.csrfToken, presented);
  }

  /** Ends this session. */
  async end(session: LiveSession): Promise<void> {
    await this.opts.store.deleteSession(session.idSha256);
  }

  /** Ends every session of this session's user (or local operator identity), this one included. */
  async endAll(session: LiveSession): Promise<number> {
    return this.opts.store.deleteSessionsOf(session.owner);
  }

  /** The Set-Cookie that removes the session cookie from the browser. */
  clearingCookie(): string {
    return clearCookie(this.opts.cookies.session, this.opts.cookies.secure);
  }

  private presentedIds(ctx: RequestContext): string[] {
    return cookieValues(ctx.headers.cookie, this.opts.cookies.session)
      .filter((v) => SESSION_ID.test(v))
      .slice(0, MAX_PRESENTED);
  }

  private async live(id: string): Promise<LiveSession | null> {
    const idSha256 = sha256Hex(id);
    const stored = await this.opts.store.findSession(idSha256);
    if (!stored) return null;
    const now = this.now();
    if (!this.alive(stored, now)) {
      await this.opts.store.deleteSession(idSha256);
      return null;
    }
    if (now - stored.lastSeenAt >= this.touchEveryMs) await this.opts.store.touchSession(idSha256, now);
    const csrfToken = createHmac('sha256', this.opts.csrfKey).update(`docparse dashboard csrf:${id}`).digest('base64url');
    return { idSha256, csrfToken, createdAt: stored.createdAt, lastSeenAt: stored.lastSeenAt, ...describeOwner(stored, csrfToken) };
  }

  private alive(s: StoredSession, now: number): boolean {
    if (now - s.lastSeenAt >= this.opts.idleMs) return false;
    if (now - s.createdAt >= this.opts.maxMs) return false;
    if (s.operatorKey && !s.operatorKey.live) return false;
    return s.user !== null || s.operatorId !== null;
  }
}

function describeOwner(s: StoredSession, csrfToken: string): Pick<LiveSession, 'owner' | 'caller' | 'name'> {
  if (s.user) {
    return { owner: { userId: s.user.id }, caller: { userId: s.user.id, email: s.user.email, csrfToken }, name: s.user.name };
  }
  const operatorId = s.operatorId!;
  const name = s.operatorKey ? `Operator key "${s.operatorKey.name}"` : 'Local operator';
  return { owner: { operatorId }, caller: { userId: operatorId, email: '', operator: true, csrfToken }, name };
}
