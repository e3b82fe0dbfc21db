// The answer to OPTIONS: the methods a path allows, and for a CORS preflight the methods and
// headers a browser may send. Preflights are answered for any origin; the allowed-domain
// check runs on the real request.
import { problems } from './problem.js';
import type { Reply } from './route.js';
import type { Router } from './router.js';

const CORS_ALLOW_HEADERS = ['Authorization', 'Content-Type', 'X-Request-Id'];

export function optionsReply(router: Router, path: string, headers: Record<string, string>): Reply {
  const match = router.match('GET', path);
  const allow = new Set<string>(['OPTIONS']);
  const extra: Record<string, string> = {};
  const allowHeaders = new Set(CORS_ALLOW_HEADERS);
  for (const m of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
    const found = router.match(m, path);
    if (found.kind !== 'found') continue;
    allow.add(m);
    Object.assign(extra, found.route.options?.headers);
    for (const h of found.route.options?.corsAllowHeaders ?? []) allowHeaders.add(h);
  }
  if (allow.has('GET')) allow.add('HEAD');
  if (match.kind === 'not_found' && allow.size === 1) throw problems.notFound(`No endpoint at ${path}.`);
  const h: Record<string, string> = { ...extra, Allow: [...allow].join(', ') };
  if (headers.origin && headers['access-control-request-method']) {
    h['Access-Control-Allow-Methods'] = [...allow].join(', ');
    h['Access-Control-Allow-Headers'] = [...allowHeaders].join(', ');
    h['Access-Control-Max-Age'] = '600';
  }
  return { status: 204, headers: h, empty: true };
}
