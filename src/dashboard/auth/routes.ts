// The sign-in routes under {dashboard path}/auth/: OIDC sign-in and its callback, the local
// operator's sign-in (one-time link, operator key), sign-out (this session, everywhere) and
// the session's own description for scripts (its CSRF token). Browsers get HTML pages, also
// for refusals; other clients get problem+json.
import { Type } from '@sinclair/typebox';
import { problem, ProblemError, problems } from '../../http/problem.js';
import type { Reply, RequestContext, RouteDef } from '../../http/route.js';
import type { ManagePrincipal, SessionCaller } from '../../manage/principal.js';
import { fieldNotText, readFormBody } from '../form-body.js';
import { esc, page, SIGN_IN_CSS } from './html.js';
import { LINK_TTL_MS, localProblems, type LocalOperatorSignIn } from './local-operator.js';
import { dashboardHome, safeNextPath } from './next-path.js';
import { CALLBACK_PARAMETERS, type CallbackQuery, type OidcFlow } from './oidc-flow.js';
import type { Sessions } from './sessions.js';

export interface AuthRoutesOptions {
  basePath: string;
  /** Origin of {dashboard_url}: a sign-in form posted from anywhere else is refused. */
  dashboardOrigin: string;
  sessions: Sessions;
  /** Who a session's caller is to the management API (operator or not): the API's own rule. */
  principalOf(caller: SessionCaller): Promise<ManagePrincipal>;
  /** Null without an identity provider configured (local operator sign-in only). */
  flow: OidcFlow | null;
  local: LocalOperatorSignIn;
  idleMs: number;
  maxMs: number;
}

const MAX_FORM_BYTES = 8 * 1024;
const FORM_BODY: RouteDef['body'] = { kind: 'raw', description: 'HTML form', contentTypes: ['application/x-www-form-urlencoded'] };
const NextQuery = Type.Object({ next: Type.Optional(Type.String({ maxLength: 2048 })) }, { additionalProperties: false });
const LinkQuery = Type.Object({ token: Type.String({ maxLength: 256 }) }, { additionalProperties: false });
const CallbackQuerySchema = Type.Object(Object.fromEntries(CALLBACK_PARAMETERS.map((p) => [p, Type.Optional(Type.String({ maxLength: 8192 }))])), {
  additionalProperties: false,
});

const redirect = (location: string, headers: Record<string, string> = {}): Reply => ({ status: 303, headers: { Location: location, ...headers }, empty: true });

const crossSite = () => problem('csrf_failed', 'This sign-in form was posted from another site; sign in from the dashboard itself.');
const notSignedIn = (loginUrl: string) => problem('missing_credentials', `No live dashboard session; sign in at ${loginUrl}.`);

/** The form's fields (the first of each name); 400 naming a field that holds NUL, before anything is checked or counted. */
async function readForm(ctx: RequestContext): Promise<Record<string, string>> {
  if (!ctx.bodyStream) return {};
  const form: Record<string, string> = {};
  for (const [k, v] of await readFormBody(ctx, MAX_FORM_BYTES)) {
    const refusal = fieldNotText(k, v);
    if (refusal) throw refusal;
    form[k] ??= v;
  }
  return form;
}

/** The host[:port] of an Origin header, or null when it is not a URL. */
function hostOf(origin: string): string | null {
  try {
    return new URL(origin).host;
  } catch {
    return null;
  }
}

/** Whether the page asking is a browser's (it gets HTML refusals). */
const wantsHtml = (ctx: RequestContext) => /\btext\/html\b/.test(ctx.headers.accept ?? '');

export function authRoutes(o: AuthRoutesOptions): RouteDef[] {
  const base = o.basePath;
  const home = dashboardHome(base);
  const loginUrl = (next?: string) => `${base}/auth/login${next ? `?next=${encodeURIComponent(next)}` : ''}`;

  /**
   * A form posted to a sign-in route must come from a page of this dashboard (login CSRF).
   * Browsers say where a request comes from in Sec-Fetch-Site, which no page can forge; only
   * `same-origin` passes. Browsers without it send Origin (the sign-in pages' referrer policy
   * lets them), which must be this site. Origin `null` (an opaque origin: a sandboxed frame,
   * a data: page, a page that hides its origin) passes only with Sec-Fetch-Site same-origin.
   * A request with neither header is no browser's (a script), so it cannot be login CSRF.
   */
  const sameOrigin = (ctx: RequestContext) => {
    const site = ctx.headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin') throw crossSite();
    const origin = ctx.headers.origin;
    if (origin === undefined || origin === o.dashboardOrigin) return;
    if (origin === 'null') {
      if (site === 'same-origin') return;
      throw crossSite();
    }
    if (hostOf(origin) !== ctx.headers.host) throw crossSite();
  };

  const nextOf = (next: string | undefined): string => {
    if (next === undefined || next === '') return home;
    const path = safeNextPath(next, base);
    if (!path) throw problems.invalidParameter('next', `next must be a path inside the dashboard (${home}…); ${JSON.stringify(next.slice(0, 200))} is not.`);
    return path;
  };

  /** Refusals as an HTML page for browsers (with a way back), as problem+json otherwise. */
  const forBrowsers =
    <Q>(handler: (ctx: RequestContext<Q>) => Promise<Reply>, retryUrl = loginUrl()) =>
    async (ctx: RequestContext<Q>): Promise<Reply> => {
      try {
        return await handler(ctx);
      } catch (err) {
        if (!(err instanceof ProblemError) || !wantsHtml(ctx as RequestContext)) throw err;
        const body = `<p class="error" role="alert">${esc(err.detail ?? err.title)}</p>\n<p><a class="button" href="${esc(retryUrl)}">Sign in again</a></p>`;
        return page(base, err.title, body, err.status, err.headers);
      }
    };

  const operatorForm = (next: string, intro: string) =>
    page(
      base,
      'Sign in to DocParse',
      `${intro}
<form method="post" action="${esc(base)}/auth/operator">
<input type="hidden" name="next" value="${esc(next)}">
<label for="key">Operator key</label>
<input id="key" name="key" type="password" autocomplete="off" required spellcheck="false" aria-describedby="key-help">
<p id="key-help">A key made with <code>docparse admin keys create-operator</code> (it starts with <code>dp_op_</code>).</p>
<button type="submit">Sign in</button>
</form>`,
    );

  const signOut = (everywhere: boolean) =>
    forBrowsers(async (ctx: RequestContext) => {
      const form = await readForm(ctx);
      const session = await o.sessions.resolve(ctx);
      if (session) {
        o.sessions.checkCsrf(session, form._csrf ?? ctx.headers['x-csrf-token']);
        if (everywhere) await o.sessions.endAll(session);
        else await o.sessions.end(session);
      }
      return redirect(`${base}/auth/signed-out`, { 'Set-Cookie': o.sessions.clearingCookie() });
    });

  const route = (def: Omit<RouteDef, 'tags' | 'auth' | 'api' | 'responses'> & { responses?: RouteDef['responses'] }): RouteDef => ({
    tags: ['dashboard'],
    auth: 'public',
    api: 'dashboard',
    responses: { 303: { description: 'Redirect' } },
    ...def,
  });

  return [
    route({
      method: 'GET',
      path: `${base}/auth/login`,
      operationId: 'dashboardSignIn',
      summary: 'Start signing in (at the identity provider; without one, the local operator sign-in page)',
      query: NextQuery,
      handler: forBrowsers<{ next?: string }>(async (ctx) => {
        const next = nextOf(ctx.query.next);
        if (!o.flow) {
          return operatorForm(
            next,
            `<p>No identity provider is configured on this node, so the local operator signs in here: open the one-time link printed in the terminal where the node started (for a new one, run <code>docparse admin sign-in-link</code> where the node runs), or give an operator key.</p>`,
          );
        }
        const started = await o.flow.start(ctx, next);
        return redirect(started.location, { 'Set-Cookie': started.setCookie });
      }),
    }),
    route({
      method: 'GET',
      path: `${base}/auth/callback`,
      operationId: 'dashboardSignInCallback',
      summary: 'The identity provider returns here (redirect URI)',
      query: CallbackQuerySchema,
      handler: forBrowsers<CallbackQuery>(async (ctx) => {
        if (!o.flow) throw problems.notFound('No identity provider is configured on this node.');
        const done = await o.flow.finish(ctx);
        return redirect(done.nextPath, { 'Set-Cookie': await o.sessions.open({ userId: done.userId }, ctx) });
      }),
    }),
    route({
      method: 'GET',
      path: `${base}/auth/operator`,
      operationId: 'dashboardOperatorSignInPage',
      summary: 'Sign-in page for operators with an operator key',
      query: NextQuery,
      handler: forBrowsers<{ next?: string }>(async (ctx) =>
        operatorForm(nextOf(ctx.query.next), '<p>Platform operators can sign in with an operator key.</p>'),
      ),
    }),
    route({
      method: 'POST',
      path: `${base}/auth/operator`,
      operationId: 'dashboardOperatorSignIn',
      summary: 'Sign in with an operator key',
      body: FORM_BODY,
      handler: forBrowsers(async (ctx: RequestContext) => {
        sameOrigin(ctx);
        const form = await readForm(ctx);
        const next = nextOf(form.next);
        const operatorId = await o.local.verifyKey(form.key ?? '', ctx.remoteAddress);
        return redirect(next, { 'Set-Cookie': await o.sessions.open({ operatorId }, ctx) });
      }, `${base}/auth/operator`),
    }),
    route({
      method: 'GET',
      path: `${base}/auth/local`,
      operationId: 'dashboardLocalLinkPage',
      summary: 'A one-time local operator sign-in link: asks before it is used up',
      query: LinkQuery,
      handler: forBrowsers<{ token: string }>(async (ctx) => {
        // Only a POST uses the link, so a link previewer or prefetcher cannot spend it.
        if (!(await o.local.linkUsable(ctx.query.token))) throw localProblems.deadLink();
        return page(
          base,
          'Sign in as the local operator',
          `<p>This one-time link signs this browser in as the node's local operator (a platform operator). It works once, within ${LINK_TTL_MS / 60_000} minutes of the node's start.</p>
<form method="post" action="${esc(base)}/auth/local">
<input type="hidden" name="token" value="${esc(ctx.query.token)}">
<button type="submit">Sign in</button>
</form>`,
        );
      }),
    }),
    route({
      method: 'POST',
      path: `${base}/auth/local`,
      operationId: 'dashboardLocalLinkSignIn',
      summary: 'Use a one-time local operator sign-in link',
      body: FORM_BODY,
      handler: forBrowsers(async (ctx: RequestContext) => {
        sameOrigin(ctx);
        const form = await readForm(ctx);
        const operatorId = await o.local.useLink(form.token ?? '');
        return redirect(home, { 'Set-Cookie': await o.sessions.open({ operatorId }, ctx) });
      }),
    }),
    route({
      method: 'POST',
      path: `${base}/auth/logout`,
      operationId: 'dashboardSignOut',
      summary: 'Sign out this session (CSRF token as form field _csrf or header X-CSRF-Token)',
      body: FORM_BODY,
      handler: signOut(false),
    }),
    route({
      method: 'POST',
      path: `${base}/auth/logout-everywhere`,
      operationId: 'dashboardSignOutEverywhere',
      summary: "Sign out every session of this session's user (CSRF token as form field _csrf or header X-CSRF-Token)",
      body: FORM_BODY,
      handler: signOut(true),
    }),
    route({
      method: 'GET',
      path: `${base}/auth/signed-out`,
      operationId: 'dashboardSignedOut',
      summary: 'Where sign-out lands',
      responses: { 200: { description: 'HTML page' } },
      handler: async () => page(base, 'Signed out', `<p>You are signed out.</p>\n<p><a class="button" href="${esc(loginUrl())}">Sign in again</a></p>`),
    }),
    route({
      method: 'GET',
      path: `${base}/auth/session`,
      operationId: 'dashboardSession',
      summary: 'The signed-in session: who, until when, and its CSRF token (for scripts)',
      responses: { 200: { description: 'The session' }, 401: { description: 'No live session (missing_credentials).' } },
      handler: async (ctx) => {
        const s = await o.sessions.resolve(ctx);
        if (!s) throw notSignedIn(loginUrl());
        const idleEnds = Math.max(s.lastSeenAt, Date.now()) + o.idleMs;
        return {
          status: 200,
          json: {
            userId: s.caller.userId,
            email: s.caller.email || null,
            name: s.name,
            operator: (await o.principalOf(s.caller)).isOperator,
            csrfToken: s.csrfToken,
            signedInAt: new Date(s.createdAt).toISOString(),
            expiresAt: new Date(Math.min(s.createdAt + o.maxMs, idleEnds)).toISOString(),
          },
        };
      },
    }),
    route({
      method: 'GET',
      path: `${base}/auth/sign-in.css`,
      operationId: 'dashboardSignInStyles',
      summary: 'Stylesheet of the sign-in pages',
      responses: { 200: { description: 'CSS' } },
      handler: async () => ({
        status: 200,
        headers: { 'Cache-Control': 'public, max-age=3600', 'X-Content-Type-Options': 'nosniff' },
        text: SIGN_IN_CSS,
        contentType: 'text/css; charset=utf-8',
      }),
    }),
  ];
}
