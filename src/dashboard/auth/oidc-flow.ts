// One OIDC sign-in from start to finish. Its secrets (state, nonce, PKCE verifier, where to
// return) stay server-side, found by the state's hash and deleted on first use; the browser
// that started it holds a random sign-in cookie whose hash the request records, so a callback
// URL opened in another browser (login CSRF, a leaked URL) is refused.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { problem } from '../../http/problem.js';
import type { RequestContext } from '../../http/route.js';
import type { DashboardSessionsStore } from '../../tenancy/dashboard-sessions-store.js';
import type { MembersStore } from '../../tenancy/members-store.js';
import type { SignInStore } from '../../tenancy/sign-in-store.js';
import { cookieValues, setCookie, type DashboardCookies } from './cookies.js';
import type { OidcSignIn } from './oidc.js';
import { sha256Hex } from './sessions.js';

/** How long a sign-in at the provider may take. */
export const SIGN_IN_TTL_MS = 10 * 60_000;
const BROWSER_BINDING = /^[A-Za-z0-9_-]{43}$/;

/** What the provider may append to the redirect URI (RFC 6749, RFC 9207, and what Google, Keycloak and Entra add). */
export const CALLBACK_PARAMETERS = [
  'code',
  'state',
  'iss',
  'error',
  'error_description',
  'error_uri',
  'scope',
  'authuser',
  'prompt',
  'hd',
  'session_state',
] as const;
export type CallbackQuery = Partial<Record<(typeof CALLBACK_PARAMETERS)[number], string>>;

export const flowProblems = {
  unknownRequest: () =>
    problem(
      'sign_in_request_invalid',
      'This sign-in is unknown, was finished already or took too long (its state is used once, within 10 minutes). Start the sign-in again.',
    ),
  otherBrowser: () =>
    problem('sign_in_request_invalid', 'This sign-in was started in another browser (or its sign-in cookie is gone). Start the sign-in again in this browser.'),
};

export interface OidcFlowOptions {
  oidc: OidcSignIn;
  requests: SignInStore;
  users: DashboardSessionsStore;
  members: MembersStore;
  cookies: DashboardCookies;
  redirectUri: string;
  now?: () => number;
}

export class OidcFlow {
  private readonly now: () => number;

  constructor(private readonly opts: OidcFlowOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** Starts a sign-in returning to `nextPath`: where to send the browser, and its sign-in cookie. */
  async start(ctx: RequestContext, nextPath: string): Promise<{ location: string; setCookie: string }> {
    // One binding per browser, so sign-ins started in two tabs both finish.
    const binding = cookieValues(ctx.headers.cookie, this.opts.cookies.signIn).find((v) => BROWSER_BINDING.test(v)) ?? randomBytes(32).toString('base64url');
    const secrets = this.opts.oidc.newSecrets();
    const location = await this.opts.oidc.authorizationUrl(secrets);
    const now = this.now();
    await this.opts.requests.deleteExpired(now);
    await this.opts.requests.saveRequest({
      stateSha256: sha256Hex(secrets.state),
      browserSha256: sha256Hex(binding),
      nonce: secrets.nonce,
      codeVerifier: secrets.codeVerifier,
      nextPath,
      expiresAt: now + SIGN_IN_TTL_MS,
    });
    return { location, setCookie: setCookie(this.opts.cookies.signIn, binding, { secure: this.opts.cookies.secure, maxAgeSeconds: SIGN_IN_TTL_MS / 1000 }) };
  }

  /** Finishes a sign-in at the callback: the signed-in user (invitations to their address accepted) and where to go. */
  async finish(ctx: RequestContext<CallbackQuery>): Promise<{ userId: string; nextPath: string }> {
    const { state } = ctx.query;
    const request = state ? await this.opts.requests.takeRequest(sha256Hex(state)) : null;
    if (!request || request.expiresAt <= this.now()) throw flowProblems.unknownRequest();
    const expected = Buffer.from(request.browserSha256, 'hex');
    const fromThisBrowser = cookieValues(ctx.headers.cookie, this.opts.cookies.signIn).some((v) => {
      const presented = Buffer.from(sha256Hex(v), 'hex');
      return presented.length === expected.length && timingSafeEqual(presented, expected);
    });
    if (!fromThisBrowser) throw flowProblems.otherBrowser();

    const identity = await this.opts.oidc.finish(this.callbackUrl(ctx.query), { state: state!, nonce: request.nonce, codeVerifier: request.codeVerifier });
    const user = await this.opts.users.upsertUser(identity, this.now());
    await this.opts.members.acceptInvitations(user.email, user.id);
    return { userId: user.id, nextPath: request.nextPath };
  }

  /** The URL the provider redirected to, as openid-client checks it (the parameters as received). */
  private callbackUrl(query: CallbackQuery): URL {
    const url = new URL(this.opts.redirectUri);
    for (const name of CALLBACK_PARAMETERS) if (query[name] !== undefined) url.searchParams.set(name, query[name]!);
    return url;
  }
}
