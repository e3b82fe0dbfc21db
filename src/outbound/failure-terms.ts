// The fixed terms in which a failed request on a tenant's behalf is told to the tenant. A
// tenant learns which layer failed (the name, TLS, their credentials, their bucket, a
// permission) so they can fix it, and never the network error itself: a refused address, a
// closed port, a timeout and an answer no S3 service gives all read `endpoint not reachable`,
// so the node cannot be used to scan addresses or ports. The raw error goes to the operator's
// log only. Plain data in, a term out: nothing of the service is imported.

/** Every term a tenant may be told, in the order of the layers they name. */
export const FAILURE_TERMS = [
  /** The policy refused the address, or no connection, a timeout, a redirect, a non-S3 answer. */
  'endpoint not reachable',
  /** The endpoint's host name does not resolve (NXDOMAIN, no address, resolver failure). */
  'DNS lookup failed',
  /** The connection was made and TLS failed: certificate untrusted, expired, for another name. */
  'TLS handshake failed',
  /** The service refused the credentials themselves (unknown key id, wrong secret, expired token). */
  'access denied',
  /** The bucket does not exist (or not for this account, or not in this region). */
  'bucket not found',
  /** The credentials are valid and not allowed this operation (write, read or delete). */
  'permission denied',
] as const;

export type FailureTerm = (typeof FAILURE_TERMS)[number];

/** S3 error codes that mean the credentials were not accepted at all. */
const CREDENTIAL_CODES = new Set([
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'InvalidToken',
  'ExpiredToken',
  'TokenRefreshRequired',
  'AuthorizationHeaderMalformed',
  'InvalidSecurity',
  'Unauthorized',
]);
/** S3 error codes that mean the credentials are valid but not allowed the operation. */
const PERMISSION_CODES = new Set(['AccessDenied', 'AllAccessDisabled', 'AccountProblem']);
/** Socket error codes of a failed name resolution. */
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'EAI_NODATA']);
/** Socket error codes of a failed TLS handshake (Node's and OpenSSL's certificate codes). */
const TLS_CODES = new Set([
  'EPROTO',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_REVOKED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

interface ErrorLike {
  name?: string;
  code?: string;
  Code?: string;
  cause?: unknown;
  $metadata?: { httpStatusCode?: number };
}

/** The socket-level code of err or of an error it wraps (the SDK wraps some), else undefined. */
function socketCode(err: unknown): string | undefined {
  for (let e = err as ErrorLike | undefined, depth = 0; e && depth < 4; e = e.cause as ErrorLike | undefined, depth++) {
    if (e.name === 'OutboundRefusedError' || e.code === 'EOUTBOUNDREFUSED') return 'EOUTBOUNDREFUSED';
    if (typeof e.code === 'string') return e.code;
  }
  return undefined;
}

/**
 * The term for a failed S3 request: by the HTTP answer when there is one (its S3 error code
 * tells refused credentials from a missing permission; a HEAD answer has no code, and a 403 to
 * it reads `access denied`), else by the socket error.
 */
export function storageFailureTerm(err: unknown): FailureTerm {
  const e = (err ?? {}) as ErrorLike;
  const status = e.$metadata?.httpStatusCode;
  const code = e.Code ?? e.name;
  if (status !== undefined) {
    if (status === 404 || code === 'NoSuchBucket') return 'bucket not found';
    if (status === 401 || (code && CREDENTIAL_CODES.has(code))) return 'access denied';
    if (status === 403) return code && PERMISSION_CODES.has(code) ? 'permission denied' : 'access denied';
    return 'endpoint not reachable';
  }
  const socket = socketCode(err);
  if (socket && DNS_CODES.has(socket)) return 'DNS lookup failed';
  if (socket && (TLS_CODES.has(socket) || socket.startsWith('ERR_SSL_') || socket.startsWith('ERR_TLS_'))) return 'TLS handshake failed';
  return 'endpoint not reachable';
}
