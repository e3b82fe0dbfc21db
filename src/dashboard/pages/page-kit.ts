// What every page shares: a session or a 303 to sign-in; for forms, the CSRF token checked
// before anything else is read or done; the management API client; refusals from the API
// shown as a page with the API's own status and words.
import { Type, type TObject, type TProperties } from '@sinclair/typebox';
import { ProblemError } from '../../http/problem.js';
import type { Reply, RequestContext, RouteDef } from '../../http/route.js';
import type { Tenant } from '../../tenancy/types.js';
import type { DashboardPageDeps, SignedIn } from '../types.js';
import type { AssetUrls } from './assets.js';
import { FormFields, readForm } from './forms.js';
import { html } from './html.js';
import { redirect, renderPage, type PageView } from './layout.js';
import { indexRoutes, ManageClient } from './manage-client.js';

/** Built once: what every page needs to know about the dashboard. */
export interface Dashboard {
  deps: DashboardPageDeps;
  /** The base path without a trailing slash ('' at the root). */
  base: string;
  assets: AssetUrls;
  manageRoutes: Map<string, RouteDef>;
}

export function createDashboard(deps: DashboardPageDeps, assets: AssetUrls): Dashboard {
  return { deps, base: deps.basePath.replace(/\/+$/, ''), assets, manageRoutes: indexRoutes(deps.manageRoutes) };
}

/** One page request, signed in. */
export interface Page<Q = Record<string, string | undefined>> {
  ctx: RequestContext<Q>;
  user: SignedIn;
  api: ManageClient;
  d: Dashboard;
  /** Absolute path of a dashboard page. */
  url(path: string): string;
  /** A page of this dashboard. */
  view(v: PageView): Reply;
  /** The tenant of a /t/:tenantId page, as the API shows it (404 when not visible). */
  tenant(): Promise<Tenant>;
}

type PageResult = PageView | Reply;
const isReply = (r: PageResult): r is Reply => typeof (r as Reply).status === 'number' && !('body' in r && 'title' in r);

function currentPath(ctx: RequestContext): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(ctx.query as Record<string, unknown>)) if (v !== undefined) q.set(k, String(v));
  const qs = q.toString();
  return qs ? `${ctx.path}?${qs}` : ctx.path;
}

function makePage<Q>(d: Dashboard, ctx: RequestContext<Q>, user: SignedIn): Page<Q> {
  const page: Page<Q> = {
    ctx,
    user,
    d,
    api: new ManageClient(d.manageRoutes, ctx as RequestContext, user.csrfToken),
    url: (path) => d.base + path,
    view: (v) => renderPage({ base: d.base, assets: d.assets, user }, v),
    tenant: () => page.api.call<Tenant>('getTenant', { params: { tenantId: ctx.params.tenantId } }),
  };
  return page;
}

/** A refusal as a page: the API's status, title and detail, and a way back. */
function problemPage(page: Page<unknown>, err: ProblemError): Reply {
  const hint =
    err.code === 'csrf_failed'
      ? 'The form did not carry this session’s security token (it may be from an older page or another site). Nothing was changed. Go back, reload the page and try again.'
      : err.status === 404
        ? 'It does not exist, or it belongs to an organisation you are not a member of.'
        : err.status === 403
          ? 'Your role does not allow this. Ask an owner of the organisation (or an operator).'
          : '';
  return page.view({
    title: err.title,
    status: err.status,
    body: html`<div class="notice bad" role="alert"><p>${err.detail ?? err.title}</p>${hint ? html`<p>${hint}</p>` : ''}</div><p><a href="${page.url('/')}">Back to your organisations</a></p>`,
  });
}

async function guarded<Q>(page: Page<Q>, run: () => Promise<PageResult>): Promise<Reply> {
  try {
    const r = await run();
    return isReply(r) ? r : page.view(r);
  } catch (err) {
    if (err instanceof ProblemError && err.status < 500) return problemPage(page as Page<unknown>, err);
    throw err;
  }
}

const withNotice = (q: TProperties) => Type.Object({ ...q, done: Type.Optional(Type.String({ maxLength: 40 })) }, { additionalProperties: false });

/** A GET page. `query` lists its query parameters (plus `done`, the outcome of the last form). */
export function getPage<Q = Record<string, string | undefined>>(
  d: Dashboard,
  path: string,
  opts: { query?: TProperties; params?: TObject; summary: string },
  render: (page: Page<Q>) => Promise<PageResult>,
): RouteDef {
  return {
    method: 'GET',
    path: d.base + path,
    operationId: `dashboardPage ${path}`,
    summary: opts.summary,
    tags: ['dashboard'],
    auth: 'public',
    api: 'dashboard',
    query: withNotice(opts.query ?? {}),
    ...(opts.params ? { params: opts.params } : {}),
    responses: { 200: { description: 'The page.', contentType: 'text/html' }, 303: { description: 'Not signed in: to the sign-in page.' } },
    handler: async (ctx) => {
      const user = await d.deps.auth.signedIn(ctx);
      if (!user) return redirect(d.deps.auth.loginUrl(currentPath(ctx)));
      const page = makePage(d, ctx as RequestContext<Q>, user);
      return guarded(page, () => render(page));
    },
  };
}

/**
 * A form POST. The session and the CSRF token are checked before the handler runs; the
 * handler answers with a redirect (POST-redirect-GET) or the form again with its errors.
 */
export function postForm(
  d: Dashboard,
  path: string,
  opts: { params?: TObject; summary: string; /** Where to send a request without a session back to after sign-in. */ back?: (ctx: RequestContext) => string },
  handle: (page: Page, form: FormFields) => Promise<PageResult>,
): RouteDef {
  return {
    method: 'POST',
    path: d.base + path,
    operationId: `dashboardForm ${path}`,
    summary: opts.summary,
    tags: ['dashboard'],
    auth: 'public',
    api: 'dashboard',
    ...(opts.params ? { params: opts.params } : {}),
    body: {
      kind: 'raw',
      description: 'The form, application/x-www-form-urlencoded, with its `_csrf` token.',
      contentTypes: ['application/x-www-form-urlencoded'],
    },
    responses: { 303: { description: 'Done: to the page that shows the outcome (or to sign-in).' }, 403: { description: 'Missing or wrong CSRF token.' } },
    handler: async (ctx) => {
      const user = await d.deps.auth.signedIn(ctx);
      if (!user) return redirect(d.deps.auth.loginUrl(opts.back ? opts.back(ctx) : `${d.base}/`));
      const page = makePage(d, ctx as RequestContext<Record<string, string | undefined>>, user);
      return guarded(page, async () => {
        const form = await readForm(ctx);
        d.deps.auth.checkCsrf(user, form.has('_csrf') ? form.get('_csrf') : undefined);
        return handle(page, form);
      });
    },
  };
}
