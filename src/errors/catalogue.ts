// Every error code a client can meet, in one table: what a problem document (RFC 9457) is
// called and answered with, the reasons a job fails, and the token endpoint's RFC 6749
// errors. Problems are built from this table (src/http/problem.ts), the OpenAPI error
// responses and docs/errors.md are generated from it, and test/errors/catalogue.test.ts keeps
// the code in src/ and the page equal to it. Plain data that imports nothing, so the parsers
// (job failures) and the HTTP front (problems) can both stand on it.

/** Where a problem can come from; the errors page has one section per group. */
export type ProblemGroup = 'front' | 'request' | 'auth' | 'documents' | 'health' | 'manage' | 'dashboard';

export interface ProblemEntry {
  status: number;
  title: string;
  /** When it is answered: one or two sentences for the errors page and the OpenAPI document. */
  when: string;
  group: ProblemGroup;
}

/** Problem documents (application/problem+json): code → status, title, when. */
export const PROBLEMS = {
  // ---- the HTTP front: any request, before or around its route
  invalid_framing: {
    status: 400,
    title: 'Invalid message framing',
    group: 'front',
    when: 'Where the request body ends is in doubt (RFC 9112 §6.3): differing or malformed Content-Length, or Content-Length with Transfer-Encoding. Names `header`; the connection is closed.',
  },
  client_aborted: {
    status: 400,
    title: 'Client aborted',
    group: 'front',
    when: 'The client closed the connection before the request body was complete (recorded in the log; the client is gone).',
  },
  not_found: { status: 404, title: 'Not found', group: 'front', when: 'No endpoint at this path.' },
  method_not_allowed: {
    status: 405,
    title: 'Method not allowed',
    group: 'front',
    when: 'The path exists, but not with this method; `Allow` lists the methods it takes.',
  },
  request_timeout: {
    status: 408,
    title: 'Request timeout',
    group: 'front',
    when: 'The request body arrived too slowly; nothing of it was stored or charged, and the connection is closed.',
  },
  headers_too_large: {
    status: 431,
    title: 'Request header fields too large',
    group: 'front',
    when: 'The request line and headers are longer than `DOCPARSE_MAX_HEADER_BYTES` (`maxBytes`).',
  },
  internal_error: {
    status: 500,
    title: 'Internal server error',
    group: 'front',
    when: 'An unexpected error; it is logged with the request id.',
  },
  unsupported_transfer_coding: {
    status: 501,
    title: 'Unsupported transfer coding',
    group: 'front',
    when: 'A transfer coding other than chunked (names `coding`); the connection is closed.',
  },
  service_unavailable: {
    status: 503,
    title: 'Service unavailable',
    group: 'front',
    when: 'A backing service (Redis, PostgreSQL) is unreachable, and the detail names it; or this node has no token verification configured. `Retry-After`.',
  },

  // ---- the request: parameters and body
  invalid_parameter: {
    status: 400,
    title: 'Invalid parameter',
    group: 'request',
    when: 'A query, path or body parameter is missing or invalid, or the body is not what the endpoint takes. Names `parameter`, and `allowed` for a closed set of values.',
  },
  document_too_large: {
    status: 413,
    title: 'Document too large',
    group: 'request',
    when: "The document exceeds the plan's maximum file size or the direct-upload limit (from Content-Length before reading, else while streaming), a presigned upload sends more than its session declared, or a JSON or form body exceeds what its endpoint reads. `maxBytes` names the limit where one applies.",
  },
  unsupported_media_type: {
    status: 415,
    title: 'Unsupported media type',
    group: 'request',
    when: 'A JSON (or form) body sent with another Content-Type.',
  },

  // ---- the parsing API's bearer token
  missing_token: {
    status: 401,
    title: 'Missing token',
    group: 'auth',
    when: 'No bearer token in the Authorization header (`WWW-Authenticate: Bearer`).',
  },
  invalid_token: {
    status: 401,
    title: 'Invalid token',
    group: 'auth',
    when: 'The access token is malformed, not signed by this service, for another issuer, or lacks a claim; the detail says which.',
  },
  token_expired: {
    status: 401,
    title: 'Token expired',
    group: 'auth',
    when: 'The access token has expired; request a new one from the token endpoint.',
  },
  domain_not_allowed: {
    status: 403,
    title: 'Domain not allowed',
    group: 'auth',
    when: "A browser request whose Origin (or Referer) is not in the token's allowed domains.",
  },

  // ---- documents: uploads, status, results
  feature_not_in_plan: {
    status: 403,
    title: 'Feature not in plan',
    group: 'documents',
    when: "`pdfMode=Ocr` without the plan's `ocrPdfExtraction`, or `Advanced` without `advancedPdfExtraction` (names `feature`).",
  },
  app_disabled: {
    status: 403,
    title: 'App disabled',
    group: 'documents',
    when: 'The app was disabled (or deleted), or its tenant deactivated, after its token was issued.',
  },
  invalid_signature: {
    status: 403,
    title: 'Invalid signature',
    group: 'documents',
    when: 'The signature of a presigned upload URL does not match.',
  },
  document_not_found: {
    status: 404,
    title: 'Document not found',
    group: 'documents',
    when: "No document with this id for this tenant: unknown, expired (past the retention period), or another tenant's. Also the `error.code` of such an id in a batch status answer.",
  },
  part_not_found: {
    status: 404,
    title: 'Part not found',
    group: 'documents',
    when: 'The completed result has no part of this name.',
  },
  upload_completed: {
    status: 409,
    title: 'Upload already completed',
    group: 'documents',
    when: 'Bytes sent to a presigned upload session that was completed (or replaced) already.',
  },
  upload_incomplete: {
    status: 409,
    title: 'Upload incomplete',
    group: 'documents',
    when: 'upload-complete for a session whose bytes were not uploaded yet.',
  },
  upload_offset_mismatch: {
    status: 409,
    title: 'Upload offset mismatch',
    group: 'documents',
    when: 'A resumable (tus) PATCH whose `Upload-Offset` is not the number of bytes stored; names the stored `offset`, also in the `Upload-Offset` header. Ask with HEAD and continue from there.',
  },
  tus_version_unsupported: {
    status: 412,
    title: 'tus version not supported',
    group: 'documents',
    when: 'A request to an upload URL with a `Tus-Resumable` version other than 1.0.0 (the `Tus-Version` header lists the supported ones).',
  },
  checksum_mismatch: {
    status: 460,
    title: 'Checksum mismatch',
    group: 'documents',
    when: "A resumable (tus) PATCH whose bytes do not match its `Upload-Checksum`; none of that request's bytes were kept.",
  },
  upload_expired: {
    status: 410,
    title: 'Upload session expired',
    group: 'documents',
    when: 'The presigned upload session is past its expiry.',
  },
  unsupported_format: {
    status: 415,
    title: 'Format not supported yet',
    group: 'documents',
    when: 'The detected format is not parsed by this version (names `format` and lists `supported`).',
  },
  extraction_failed: {
    status: 422,
    title: 'Extraction failed',
    group: 'documents',
    when: "The result of a failed job. The problem's `code` is the job's failure code (see Job failures), `extraction_failed` or a more specific one; `error` carries the job's error object.",
  },
  quota_exceeded: {
    status: 429,
    title: 'Quota exceeded',
    group: 'documents',
    when: "The app's monthly Document Units are used up, counting those held by its jobs in progress (names `used` and `quota`).",
  },
  rate_limited: {
    status: 429,
    title: 'Rate limit exceeded',
    group: 'documents',
    when: "Too many unfinished jobs for the plan, or upload bytes per second over the plan (a declared Content-Length before reading; a chunked body or a presigned PUT mid-stream, nothing stored or charged); names `limit`. Also too many wrong operator keys from one address (the dashboard's sign-in form and Bearer keys on `/manage/v1` counted together; past the limit a key is not even checked), more than 10 storage checks for one tenant in a minute (nothing sent), and the management API's limits on tenants, invitations and e-mails per address (`limit`, `limitName`; nothing created, the refusal audited). `Retry-After`.",
  },
  storage_unavailable: {
    status: 502,
    title: 'Storage unavailable',
    group: 'documents',
    when: "The app keeps documents in its tenant's own storage, and that storage could not be used; `bucket` names it and `reason` is one of the fixed failure terms: `endpoint not reachable` (also an address the node's outbound policy refuses), `DNS lookup failed`, `TLS handshake failed`, `access denied` (credentials refused), `bucket not found` (also a bucket deleted since), `permission denied`. An upload refused with it stored and charged nothing; nothing is ever written to the node's own storage instead; the tenant's owners fix the storage config.",
  },
  wrong_region: {
    status: 421,
    title: 'Wrong region',
    group: 'documents',
    when: "The token's license region (or the upload URL's) is served by another region of a multi-region deployment, and this node does not forward (`DOCPARSE_REGION_FORWARDING`); `region` names it and `baseUrl` its API, where to send the request again. Nothing was stored or charged here.",
  },
  region_unavailable: {
    status: 502,
    title: 'Region unavailable',
    group: 'documents',
    when: 'The request belongs to another region and this node forwards it there, but that region could not be reached (refused, timed out, or an address the outbound policy refuses); `region` names it. Nothing was stored or charged here; `Retry-After`.',
  },
  engine_unavailable: {
    status: 503,
    title: 'Engine unavailable',
    group: 'documents',
    when: 'The document needs a parsing engine this node lacks (names `engine`, `format`, and `pdfMode` for PDF); nothing stored or charged; no `Retry-After`, since the engine stays missing until an operator installs it.',
  },

  // ---- health
  not_ready: {
    status: 503,
    title: 'Not ready',
    group: 'health',
    when: '`/health/ready` while a check fails (`failing`, `unreachable`, `checks`) or the node is draining; `Retry-After`.',
  },

  // ---- the management API (/manage/v1)
  missing_credentials: {
    status: 401,
    title: 'Credentials required',
    group: 'manage',
    when: 'No credentials: send an operator API key as `Authorization: Bearer dp_op_…`.',
  },
  invalid_credentials: {
    status: 401,
    title: 'Invalid credentials',
    group: 'manage',
    when: 'An unknown or revoked operator key.',
  },
  invalid_operator_credential: {
    status: 401,
    title: 'Operator credential required',
    group: 'manage',
    when: "A request to the node's loopback management listener (what `docparse admin` talks to) without the operator credential from the data dir.",
  },
  csrf_failed: {
    status: 403,
    title: 'CSRF check failed',
    group: 'manage',
    when: "A change authenticated by the dashboard's session cookie without the session's CSRF token (`X-CSRF-Token`, or the form field `_csrf`), or a sign-in form posted from another site.",
  },
  operator_required: {
    status: 403,
    title: 'Operators only',
    group: 'manage',
    when: 'Only platform operators may do this.',
  },
  owner_required: {
    status: 403,
    title: 'Tenant owners only',
    group: 'manage',
    when: "Only the tenant's owners (or an operator) may do this; a member may only read.",
  },
  tenant_not_found: { status: 404, title: 'Not found', group: 'manage', when: "No such tenant, or not the caller's." },
  app_not_found: { status: 404, title: 'Not found', group: 'manage', when: "No such app, or not the caller's." },
  member_not_found: { status: 404, title: 'Not found', group: 'manage', when: 'No such member of the tenant.' },
  invitation_not_found: { status: 404, title: 'Not found', group: 'manage', when: 'No such open invitation of the tenant.' },
  plan_not_found: { status: 404, title: 'Not found', group: 'manage', when: 'No such plan.' },
  storage_config_not_found: { status: 404, title: 'Not found', group: 'manage', when: "No such storage config, or not the caller's." },
  operator_key_not_found: { status: 404, title: 'Not found', group: 'manage', when: 'No such operator key.' },
  'e-mail_not_found': { status: 404, title: 'Not found', group: 'manage', when: "No such e-mail in the outbox, or not the caller's." },
  already_member: {
    status: 409,
    title: 'Conflict',
    group: 'manage',
    when: "Inviting an address that is already a member of the tenant (`role` names its role): a member's role is changed with `PATCH /manage/v1/tenants/{tenantId}/members/{email}`, not by inviting them again.",
  },
  already_invited: {
    status: 409,
    title: 'Conflict',
    group: 'manage',
    when: 'The address has an open invitation already; revoke it first to change the role.',
  },
  last_owner: {
    status: 409,
    title: 'Conflict',
    group: 'manage',
    when: "Removing or demoting the tenant's last owner.",
  },
  invalid_state: {
    status: 409,
    title: 'Conflict',
    group: 'manage',
    when: 'A tenant transition (activate, suspend, reactivate…) from a state it does not apply to.',
  },
  storage_unreachable: {
    status: 422,
    title: 'Storage unreachable',
    group: 'manage',
    when: 'The live check of a new storage config failed; nothing was saved. Names `bucket`, `step` (`bucket`: looking it up; `write`, `read`, `delete`: the probe object) and `reason`, a fixed failure term: `endpoint not reachable` (also an address the outbound policy refuses: loopback, private, link-local …; a closed port; a timeout), `DNS lookup failed`, `TLS handshake failed`, `access denied` (credentials refused), `bucket not found` or `permission denied` (valid credentials not allowed that step).',
  },

  // ---- dashboard sign-in (issue 20)
  sign_in_request_invalid: {
    status: 400,
    title: 'Sign-in not recognised',
    group: 'dashboard',
    when: 'The identity provider sent back a sign-in this node does not know, finished already, older than 10 minutes, or started in another browser.',
  },
  sign_in_link_invalid: {
    status: 403,
    title: 'Sign-in link not valid',
    group: 'dashboard',
    when: "The local operator's one-time sign-in link is unknown, used already or expired.",
  },
  sign_in_failed: {
    status: 403,
    title: 'Sign-in failed',
    group: 'dashboard',
    when: "The identity provider's answer was refused (the detail says why).",
  },
  email_not_verified: {
    status: 403,
    title: 'E-mail address not verified',
    group: 'dashboard',
    when: 'The identity provider does not vouch for an e-mail address of the account (`email_verified` is not true); tenants are joined by e-mail address.',
  },
  email_not_usable: {
    status: 403,
    title: 'E-mail address not usable',
    group: 'dashboard',
    when: 'The identity provider vouches for an address the dashboard does not take: one that Unicode normalisation (NFKC) would change, such as a Kelvin sign for K (it could stand for another address), or one without a dot in its domain (`root@localhost`). Nothing is written.',
  },
  identity_provider_unavailable: {
    status: 503,
    title: 'Identity provider unavailable',
    group: 'dashboard',
    when: 'The identity provider could not be reached; `Retry-After`.',
  },
} as const satisfies Record<string, ProblemEntry>;

export type ProblemCode = keyof typeof PROBLEMS;

export interface JobFailureEntry {
  when: string;
  /** Whether the job is retried before it fails with this code (transient), or failed at once. */
  retried: boolean;
}

/**
 * The `error.code` of a failed job (status `failed`, 9): in the status answers, and as the
 * `code` of the 422 problem `/result` answers with (see `extraction_failed` above).
 */
export const JOB_FAILURES = {
  extraction_failed: {
    retried: false,
    when: 'The document could not be read (damaged or unsupported content), its result could not be written or stored, or it stopped the parsing process more often than `DOCPARSE_MAX_ATTEMPTS`. The message says which, about the document; the raw error is in the log.',
  },
  corrupt_document: {
    retried: false,
    when: 'A damaged container the parser recognised, named in the message: a looping or out-of-range OLE2 compound-document chain (DOC, XLS, PPT, MSG), a truncated Word stream, a damaged PST item, an RTF whose `\\bin` announces more bytes than the file holds, a Parquet row group whose declared sizes or counts its bytes cannot hold (page sizes, row and value counts, chunk extents; the field is named).',
  },
  encrypted_document: {
    retried: false,
    when: 'The document is password-protected or encrypted (there is no password parameter).',
  },
  document_too_complex: {
    retried: false,
    when: "Parsing ran past the task timeout (`DOCPARSE_TASK_TIMEOUT_SECONDS`), the per-thread heap ceiling (`DOCPARSE_WORKER_MAX_HEAP_MB`) or the parsing process's memory ceiling (`DOCPARSE_PARSER_MAX_RSS_MB`), the per-task memory budget outside the JS heap (`DOCPARSE_TASK_MAX_MEMORY_MB`, or a Parquet row group that would need more than it to decode), or an Office file declares counts LibreOffice would not finish with (RTF table nesting or group depth, text columns, repeated spreadsheet cells); it would recur.",
  },
  document_too_large: {
    retried: false,
    when: "The document is larger than its family's parser reads (EML, MSG and SQL files have their own ceilings), though within the plan's maximum file size.",
  },
  engine_unavailable: {
    retried: true,
    when: 'The worker node that took the job lacks an engine it needs; retried (possibly on another worker) up to `DOCPARSE_MAX_ATTEMPTS`, then failed; never charged.',
  },
  storage_unavailable: {
    retried: true,
    when: "The app's own storage (its tenant's S3-compatible bucket) could not be used to read the upload or write the result — not reachable, DNS or TLS failure, access or permission denied, bucket not found (deleted mid-job too), or an address the node may not reach; the job goes to `retrying` (5), up to `DOCPARSE_MAX_ATTEMPTS`, then fails with a message naming the bucket and the reason; nothing is written to the node's own storage instead; never charged.",
  },
  quota_exceeded: {
    retried: false,
    when: "The app's monthly Document Unit quota was reached before the job ran, or the units counted while parsing (SQL statements, pages known only at the end) would cross it; nothing is charged or served.",
  },
  invalid_parameter: {
    retried: false,
    when: 'A routing parameter the parser needs is missing or not one it supports (e.g. `sqlDialect`); uploads are refused for this with a 400 first, so a job meets it only when it was queued another way.',
  },
  queue_unavailable: {
    retried: false,
    when: 'The upload was stored but the job queue could not take it (stage `upload`); upload again.',
  },
} as const satisfies Record<string, JobFailureEntry>;

export type JobFailureCode = keyof typeof JOB_FAILURES;

export interface OAuthErrorEntry {
  /** The statuses it is answered with (RFC 6749 §5.2 ties codes to meanings, not to one status). */
  statuses: readonly number[];
  when: string;
}

/** The token endpoint's errors: `{"error", "error_description"}` (RFC 6749 §5.2), not problem documents. */
export const OAUTH_ERRORS = {
  invalid_request: {
    statuses: [400, 405, 408, 413, 415],
    when: 'A required form field is missing or repeated, two client authentication methods are used at once, the body is not a form (415) or too large (413), the method is not POST (405), or the body arrived too slowly (408).',
  },
  invalid_client: {
    statuses: [401, 429],
    when: 'Unknown client_id, wrong client_secret or malformed HTTP Basic credentials (401, `WWW-Authenticate: Basic` when Basic was used); too many failed attempts from this address or for this client id (429, `Retry-After`).',
  },
  unauthorized_client: {
    statuses: [400],
    when: 'The app may not get tokens: disabled, its tenant missing or not active, no license region, no database code, or its plan missing or retired.',
  },
  unsupported_grant_type: { statuses: [400], when: 'A grant_type other than client_credentials.' },
  invalid_scope: { statuses: [400], when: 'A scope other than Service.API.' },
  temporarily_unavailable: {
    statuses: [503],
    when: 'A backing service (PostgreSQL, Redis) is unreachable; `Retry-After`.',
  },
  server_error: { statuses: [500, 501], when: 'An unexpected error (logged), or a transfer coding the server does not implement.' },
} as const satisfies Record<string, OAuthErrorEntry>;

export type OAuthErrorCode = keyof typeof OAUTH_ERRORS;
/** The statuses an OAuth error code may be answered with. */
export type OAuthStatus<C extends OAuthErrorCode> = (typeof OAUTH_ERRORS)[C]['statuses'][number];
