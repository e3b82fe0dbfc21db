// Which problem codes a route can answer with: the ones it declares (`errors`) and the ones
// that follow from how it is declared. The front's own refusals of any request (framing,
// 404/405, slow bodies, oversized headers, 500, 503 outages: the catalogue's 'front' group)
// are documented once, on the errors page, not on every operation.
import { PROBLEMS, type ProblemCode } from '../errors/catalogue.js';
import type { RouteDef } from './route.js';

const BEARER: readonly ProblemCode[] = ['missing_token', 'invalid_token', 'token_expired', 'domain_not_allowed'];
/** Credentials, and the limit on wrong operator keys from one address (src/manage/principal.ts). */
const MANAGE: readonly ProblemCode[] = ['missing_credentials', 'invalid_credentials', 'rate_limited'];
/** A change made with a dashboard session cookie must carry its CSRF token (src/manage/principal.ts). */
const MANAGE_CHANGE: readonly ProblemCode[] = ['csrf_failed'];
/** A request of another region in a multi-region deployment (src/http/regions.ts): refused or forwarded. */
const REGION: readonly ProblemCode[] = ['wrong_region', 'region_unavailable'];
/** A JSON or form body the front parses before the handler (readAll, parseBody). */
const PARSED_BODY: readonly ProblemCode[] = ['document_too_large', 'unsupported_media_type'];

/**
 * Every code the route answers with, ordered by status then code. Empty for a route with its
 * own error format (the token endpoint's RFC 6749 errors). `invalid_parameter` applies to every
 * route: an unknown query parameter, or a body where none is taken, is refused everywhere.
 */
export function problemCodesOf(route: Pick<RouteDef, 'method' | 'auth' | 'body' | 'errors' | 'errorReply' | 'regionOf'>): ProblemCode[] {
  if (route.errorReply) return [];
  const codes = new Set<ProblemCode>(['invalid_parameter']);
  if (route.auth === 'bearer') for (const c of BEARER) codes.add(c);
  if (route.auth === 'bearer' || route.regionOf) for (const c of REGION) codes.add(c);
  if (route.auth === 'manage') for (const c of MANAGE) codes.add(c);
  if (route.auth === 'manage' && route.method !== 'GET') for (const c of MANAGE_CHANGE) codes.add(c);
  if (route.body && route.body.kind !== 'raw') for (const c of PARSED_BODY) codes.add(c);
  for (const c of route.errors ?? []) codes.add(c);
  return [...codes].sort((a, b) => PROBLEMS[a].status - PROBLEMS[b].status || a.localeCompare(b));
}

/** The codes grouped by the status they are answered with. */
export function codesByStatus(codes: readonly ProblemCode[]): Map<number, ProblemCode[]> {
  const byStatus = new Map<number, ProblemCode[]>();
  for (const c of codes) {
    const status = PROBLEMS[c].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), c]);
  }
  return byStatus;
}
