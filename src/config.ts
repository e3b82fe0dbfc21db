// Environment → typed, validated configuration. Every bad value is reported at boot with
// the variable's name and what it accepts; the process does not start half-configured. The
// one place that reads the environment: the parsers' settings and the engines' locations too
// are read here and handed down (to the parsing process and its threads as workerData, to
// each parser in ParseInput.settings).
import os from 'node:os';
import path from 'node:path';
import type { S3BlobStoreOptions } from './storage/s3-blob-store.js';
import { isIP } from 'node:net';
import { canonicalEmail, EmailAddressError } from './mail/address.js';
import { defaultMailFrom } from './mail/settings.js';
import { DEFAULT_PARSER_SETTINGS, type OfficeRender, type ParserSettings } from './formats/settings.js';
import { parseRange } from './outbound/address-policy.js';
import { RegionTable } from './http/region-table.js';

/** Values a boolean variable may take (case-insensitive). */
const TRUE_WORDS = ['1', 'true', 'yes', 'on'];
const FALSE_WORDS = ['0', 'false', 'no', 'off'];

export type Role = 'api' | 'worker' | 'auth';
export const ALL_ROLES: Role[] = ['api', 'worker', 'auth'];

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | null;
  redisUrl: string | null;
  baseUrl: string;
  authUrl: string;
  dashboardUrl: string;
  region: string;
  /** License regions an app may be given (DOCPARSE_REGIONS; default: [region]). */
  regions: string[];
  /**
   * The deployment's regions, code → public API base URL (DOCPARSE_REGION_URLS), or null: a
   * single-region deployment, where no request is checked for its region.
   */
  regionUrls: Record<string, string> | null;
  /** A request of another region is forwarded there (true) or answered 421 wrong_region (false). */
  regionForwarding: boolean;
  /** A forwarded request is abandoned once no byte has moved either way for this long (s). */
  regionForwardTimeoutSeconds: number;
  /** Signed-in users with one of these addresses (canonical: src/mail/address.ts) are platform operators. */
  operatorEmails: string[];
  nodeId: string;
  demoClientId: string | null;
  demoClientSecret: string | null;
  /** Seeds the demo workspace on first start (default: only on the embedded control plane). */
  seedDemo: boolean;
  /** Secret from which encryption-at-rest keys are derived; generated into dataDir when unset on the embedded default. */
  masterKey: string | null;
  retentionSeconds: number;
  workerThreads: number;
  heavySlots: number;
  /** Heavy slots one tenant may hold at once: on this node (embedded) or across the nodes sharing Redis. */
  heavySlotsPerTenant: number;
  /** Redis queue: deliveries of one app per turn before another app's waiting job goes first (jobs/redis-queue.ts, Turns). */
  queueFairTurn: number;
  taskTimeoutSeconds: number;
  workerMaxHeapMb: number;
  /** The parsing process is killed (and its culprit job failed) past this resident size. */
  parserMaxRssMb: number;
  /** Flags for the parsing process's node (diagnostics: `--cpu-prof …`, which NODE_OPTIONS refuses). */
  parserNodeArgs: string[];
  maxAttempts: number;
  maxHeaderBytes: number;
  directUploadMaxBytes: number;
  shutdownGraceSeconds: number;
  /** After SIGTERM, how long the node still answers while saying it drains, before it closes its listener (s). */
  drainNoticeSeconds: number;
  trustProxy: boolean;
  logLevel: string;
  roles: Role[];
  /** The node's blob storage on S3-compatible storage, or null for local disk under dataDir. */
  s3: S3BlobStoreOptions | null;
  /** smtp:// or smtps:// URL of the mail server; null keeps e-mails in the outbox. */
  smtpUrl: string | null;
  /** From: of the e-mails the service sends. */
  mailFrom: string;
  /** Dashboard sign-in through OpenID Connect; null without a client id (local operator sign-in only). */
  oidc: { issuer: string; clientId: string; clientSecret: string | null } | null;
  /** Dashboard sessions end after this long without a request… */
  sessionIdleMinutes: number;
  /** …and after this long in any case. */
  sessionMaxHours: number;
  /** The parsers' limits and switches, and where the engines are (src/formats/settings.ts). */
  parsers: ParserSettings;
  /** Address ranges the node may reach on a tenant's behalf besides public unicast (src/outbound). */
  outboundAllow: string[];
  /** Webhook callbacks to http:// loopback addresses (development only; https otherwise). */
  allowHttpCallbacks: boolean;
  /** How long a webhook is retried after its job ended (s). */
  webhookMaxAgeSeconds: number;
}

export class ConfigError extends Error {
  constructor(public readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/** One row per variable: the README's configuration table is generated from this list. */
export const CONFIG_DOCS: { name: string; default: string; description: string }[] = [
  { name: 'PORT', default: '8080', description: 'HTTP port of the API (and of the token endpoint when the auth role runs here).' },
  { name: 'HOST', default: '127.0.0.1', description: 'Address to bind; `0.0.0.0` in containers.' },
  {
    name: 'DOCPARSE_DATA_DIR',
    default: './data',
    description: 'Embedded control plane (PGlite), embedded job store, blobs, generated master key; while a node runs, its lock file and operator credential.',
  },
  { name: 'DATABASE_URL', default: '(unset → embedded PGlite)', description: '`postgres://…` selects PostgreSQL for the control plane.' },
  { name: 'REDIS_URL', default: '(unset → embedded job store)', description: '`redis://…` selects Redis (job hashes + BullMQ queue + counters).' },
  { name: 'DOCPARSE_BASE_URL', default: 'http://localhost:$PORT', description: 'Public address of the API ({base_url}).' },
  { name: 'DOCPARSE_AUTH_URL', default: '$DOCPARSE_BASE_URL', description: 'Public address of the token endpoint ({auth_url}); the `iss` of every token.' },
  { name: 'DOCPARSE_DASHBOARD_URL', default: '$DOCPARSE_BASE_URL/dashboard', description: 'Public address of the dashboard ({dashboard_url}).' },
  { name: 'DOCPARSE_REGION', default: 'local', description: 'Region code of this node, reported in node-state and used as the demo app licence region.' },
  {
    name: 'DOCPARSE_REGIONS',
    default: '$DOCPARSE_REGION',
    description: 'Comma-separated license regions an app may be given through the management API (`/manage/v1`).',
  },
  {
    name: 'DOCPARSE_REGION_URLS',
    default: '(unset → one region, nothing checked)',
    description:
      'The regions of a multi-region deployment and the public API base URL of each: `eu=https://eu.example,us=https://us.example`. A region covers the codes it prefixes at a dash (`eu` covers `eu-central-1`). When set, DOCPARSE_REGION and every DOCPARSE_REGIONS entry must sit in one of them, a document request whose token (or upload URL) is of another region is forwarded or refused (DOCPARSE_REGION_FORWARDING), and an app may only use a storage config of its own region. See Operations, Regions.',
  },
  {
    name: 'DOCPARSE_REGION_FORWARDING',
    default: 'false',
    description:
      "With DOCPARSE_REGION_URLS: forward a request of another region to that region's base URL (bodies streamed both ways, the caller's Authorization passed on, through the outbound address policy) instead of answering `421 wrong_region`. An unreachable region answers `502 region_unavailable`.",
  },
  {
    name: 'DOCPARSE_REGION_FORWARD_TIMEOUT_SECONDS',
    default: '30',
    description:
      'A forwarded request is abandoned when no byte has moved either way for this long (connecting included): `502 region_unavailable` before its answer began, the connection cut after.',
  },
  {
    name: 'DOCPARSE_OIDC_ISSUER',
    default: 'https://accounts.google.com',
    description: 'Dashboard sign-in: the OpenID Connect issuer (Google by default; any standard provider). Plain http only on a loopback address.',
  },
  {
    name: 'DOCPARSE_OIDC_CLIENT_ID',
    default: '(none → local operator sign-in only)',
    description: 'Dashboard sign-in: the OAuth client id registered with the issuer; redirect URI `{dashboard_url}/auth/callback`.',
  },
  {
    name: 'DOCPARSE_OIDC_CLIENT_SECRET',
    default: '(none)',
    description: 'Dashboard sign-in: the client secret registered with the issuer (PKCE is used either way).',
  },
  { name: 'DOCPARSE_SESSION_IDLE_MINUTES', default: '120', description: 'Dashboard sessions end after this long without a request.' },
  { name: 'DOCPARSE_SESSION_MAX_HOURS', default: '24', description: 'Dashboard sessions end this long after sign-in, whatever the activity.' },
  {
    name: 'DOCPARSE_OPERATOR_EMAILS',
    default: '(none)',
    description:
      'Comma-separated e-mail addresses of platform operators: dashboard users signed in with one of them see and manage every tenant. Compared in one canonical form (NFKC, lower case); an address that Unicode normalisation would change, or without a dot in its domain, is refused at start.',
  },
  { name: 'DOCPARSE_NODE_ID', default: 'hostname-pid', description: 'Node identifier reported by /health/node-state.' },
  { name: 'DOCPARSE_DEMO_CLIENT_ID', default: '(generated)', description: 'Client id of the demo app seeded on first start.' },
  {
    name: 'DOCPARSE_DEMO_CLIENT_SECRET',
    default: '(generated, printed once)',
    description: 'Client secret of the demo app seeded on first start (≥ 16 characters).',
  },
  {
    name: 'DOCPARSE_SEED_DEMO',
    default: 'true when DATABASE_URL is unset; false in the Docker image',
    description: 'Seed the demo tenant and app on first start (in a container: `docker run -e DOCPARSE_SEED_DEMO=true …`).',
  },
  {
    name: 'DOCPARSE_MASTER_KEY',
    default: '(embedded: generated in the data dir)',
    description: 'Encrypts signing keys and storage credentials at rest; required with DATABASE_URL; ≥ 32 characters; the same on every node.',
  },
  { name: 'DOCPARSE_RETENTION_SECONDS', default: '10800', description: 'How long jobs, uploads and artifacts are kept (3 hours).' },
  {
    name: 'DOCPARSE_WORKER_THREADS',
    default: 'CPU count',
    description:
      'Worker threads in the parsing pool. The light lane runs four jobs per thread at once (a small job spends most of its time outside the pool: state writes, moving its artifact, its ledger row); the pool queues what the threads cannot take yet.',
  },
  { name: 'DOCPARSE_HEAVY_SLOTS', default: 'half the threads (≥ 1)', description: 'Threads that heavy work (OCR, Advanced PDF) may occupy at once.' },
  {
    name: 'DOCPARSE_HEAVY_SLOTS_PER_TENANT',
    default: 'half the heavy slots (≥ 1)',
    description:
      "Heavy slots one tenant's jobs may hold at once — on this node, or across every node sharing `REDIS_URL`; its further heavy jobs wait in `waiting-for-provider`, in order, while other tenants' run.",
  },
  {
    name: 'DOCPARSE_QUEUE_FAIR_TURN',
    default: '8',
    description:
      "With `REDIS_URL`: how many of one app's queued jobs run per turn before another app's job goes first. An app's k-th unfinished job waits behind the first k of every other app, so one app's flood delays another's job by at most this many deliveries (the embedded queue takes tenants in turns, one job each). Smaller is fairer; larger keeps more of one app's jobs in BullMQ's plain wait list (see Jobs, Fairness).",
  },
  { name: 'DOCPARSE_TASK_TIMEOUT_SECONDS', default: '600', description: 'A parse running longer is stopped and failed.' },
  {
    name: 'DOCPARSE_WORKER_MAX_HEAP_MB',
    default: '2048',
    description:
      "Per-thread V8 heap ceiling (resourceLimits); a thread over it is replaced. The parsing process's main thread, which runs small CSV tasks itself, has the same ceiling.",
  },
  {
    name: 'DOCPARSE_PARSER_MAX_RSS_MB',
    default: '75 % of system memory',
    description:
      'Resident-memory ceiling of the parsing process (all threads); past it the process is replaced and the job that grew it fails with `document_too_complex`.',
  },
  {
    name: 'DOCPARSE_MAX_ATTEMPTS',
    default: '3',
    description:
      'Attempts for a job that fails transiently or stops its parsing process (a job that took its host down this often is failed, never resumed into another crash).',
  },
  {
    name: 'DOCPARSE_MAX_HEADER_BYTES',
    default: '16384',
    description:
      'Largest request line + header block accepted; larger requests get 431. (uWS 20.30 also closes a header block over 4 KiB that arrives split across TCP reads.)',
  },
  { name: 'DOCPARSE_DIRECT_UPLOAD_MAX_BYTES', default: '900000000', description: 'Largest direct upload; larger files use the presigned path.' },
  {
    name: 'DOCPARSE_SHUTDOWN_GRACE_SECONDS',
    default: '30',
    description:
      'On SIGTERM, how long in-flight requests and jobs may take to finish; jobs still parsing then are handed back to the queue for another node (see Operations, draining).',
  },
  {
    name: 'DOCPARSE_DRAIN_NOTICE_SECONDS',
    default: '2 with REDIS_URL, else 0',
    description:
      'On SIGTERM, how long the node keeps answering (node-state `acceptingTraffic: false`, readiness 503, every response closing its connection) before it closes its listener, so a balancer polling node-state moves away first. Part of the grace period.',
  },
  {
    name: 'DOCPARSE_TRUST_PROXY',
    default: 'false',
    description: 'Take the client address from X-Forwarded-For: its last entry, the one the trusted proxy added (enable only behind such a proxy).',
  },
  // Format-family limits: read by the parsers inside worker threads, validated here at boot.
  {
    name: 'DOCPARSE_GIS_MAX_INLINE_FEATURES',
    default: '100000',
    description: 'GIS: features inlined per job; past it the remaining features of a dataset are served as the result part named by featuresPart.',
  },
  {
    name: 'DOCPARSE_GIS_FGB',
    default: 'true',
    description:
      "GIS: export eligible layers (Shapefile, FileGDB, MapInfo with plain field types) through GDAL's FlatGeobuf writer and write their GeoJSON in JS — same values, ≈ 40 % less CPU; false sends every layer through GDAL's GeoJSONSeq writer.",
  },
  {
    name: 'DOCPARSE_PDFIUM_OPTIMIZED',
    default: 'true',
    description:
      "PDF: run the PDFium WASM that `npm run build` re-optimises with binaryen (≈ 15 % faster, same output), when it matches the installed package; false runs the package's own binary.",
  },
  {
    name: 'DOCPARSE_ARCHIVE_MAX_BYTES',
    default: '4294967296',
    description:
      'ZIPs (Office/OpenDocument packages, GIS archives and KMZ, Office attachments of e-mails): bytes the archives of one upload may inflate to, archives inside archives included, counted as they are inflated (zip-bomb guard). Formerly `DOCPARSE_GIS_MAX_UNZIPPED_BYTES`, still read.',
  },
  {
    name: 'DOCPARSE_ARCHIVE_MAX_ENTRIES',
    default: '20000',
    description: 'ZIPs: members the archives of one upload may hold. Formerly `DOCPARSE_GIS_MAX_ZIP_ENTRIES`, still read.',
  },
  {
    name: 'DOCPARSE_ARCHIVE_MAX_RATIO',
    default: '1000',
    description:
      'ZIPs: largest compression ratio of a member over 1 MiB, and of an upload whose archives hold archives. Formerly `DOCPARSE_GIS_MAX_ZIP_RATIO`, still read.',
  },
  {
    name: 'DOCPARSE_ARCHIVE_MAX_DEPTH',
    default: '2',
    description: 'ZIPs: levels of archives inside an archive that are opened (GIS); deeper ones are named in the warnings and not opened.',
  },
  {
    name: 'DOCPARSE_TASK_MAX_MEMORY_MB',
    default: '1024',
    description:
      'Memory one parse may take outside the V8 heap (ArrayBuffers, WebAssembly memory: PDFium, Tesseract, decompressed pages), and the most a parser may plan to allocate from sizes a document declares; past it the job fails with `document_too_complex` and its thread is replaced. The JS heap has its own ceiling, `DOCPARSE_WORKER_MAX_HEAP_MB`.',
  },
  { name: 'DOCPARSE_CAD_MAX_BYTES', default: '268435456', description: 'CAD: largest drawing (decoded whole in memory).' },
  { name: 'DOCPARSE_PARQUET_MAX_ROW_GROUP_BYTES', default: '536870912', description: 'Parquet rows: largest uncompressed row group read.' },
  {
    name: 'DOCPARSE_OFFICE_RENDER',
    default: 'always',
    description: 'Office page counts: always render with LibreOffice, auto (trust Word-confirmed DOCX counts), or off (stored counts).',
  },
  { name: 'DOCPARSE_OFFICE_MAX_PART_MB', default: '48', description: 'Office: largest main WordprocessingML part.' },
  { name: 'DOCPARSE_OFFICE_MAX_SHEET_XML_MB', default: '160', description: 'Office: largest workbook sheet XML (cells are held in memory).' },
  {
    name: 'DOCPARSE_SOFFICE',
    default: '(/usr/bin/soffice, /usr/lib/libreoffice/program/soffice, /opt/libreoffice/program/soffice, then soffice on PATH)',
    description:
      'Office: path of the LibreOffice binary (absolute). When set it is the only one tried: a path with no binary (e.g. `/nonexistent`) runs the node without LibreOffice, and the uploads that need it are refused with 503 `engine_unavailable`.',
  },
  {
    name: 'DOCPARSE_TESSDATA_DIR',
    default: '(TESSDATA_PREFIX, then /usr/share/tesseract-ocr/5/tessdata, /usr/share/tesseract-ocr/4.00/tessdata, /usr/share/tessdata)',
    description:
      "PDF Ocr: folder holding Tesseract's `eng.traineddata` (absolute). When set it is the only one searched: a folder without the model runs the node without OCR, and `pdfMode=Ocr` uploads are refused with 503 `engine_unavailable`.",
  },
  {
    name: 'TESSDATA_PREFIX',
    default: '(none)',
    description: "PDF Ocr: Tesseract's usual models folder; searched before the Debian folders when DOCPARSE_TESSDATA_DIR is unset.",
  },
  { name: 'DOCPARSE_SOFFICE_TIMEOUT_MS', default: '120000', description: 'Office: a LibreOffice conversion running longer is killed.' },
  {
    name: 'DOCPARSE_S3_BUCKET',
    default: '(unset → local disk)',
    description:
      "Keep uploads and artifacts in this S3-compatible bucket (needed when API and worker roles run on different machines); tenants' own storage overrides it per app.",
  },
  {
    name: 'DOCPARSE_S3_ENDPOINT',
    default: '(AWS)',
    description:
      'Endpoint of an S3-compatible service (MinIO, R2, …). Over https:// uploads are sent unsigned (TLS checks their bytes; trust a private CA with NODE_EXTRA_CA_CERTS); over http:// each carries its SHA-256, signed.',
  },
  { name: 'DOCPARSE_S3_REGION', default: 'us-east-1', description: 'Region of the bucket.' },
  { name: 'DOCPARSE_S3_PREFIX', default: '(none)', description: 'Key prefix inside the bucket.' },
  { name: 'DOCPARSE_S3_ACCESS_KEY_ID', default: '(required with a bucket)', description: 'Access key for the bucket.' },
  { name: 'DOCPARSE_S3_SECRET_ACCESS_KEY', default: '(required with a bucket)', description: 'Secret key for the bucket.' },
  { name: 'DOCPARSE_S3_FORCE_PATH_STYLE', default: 'false', description: 'Path-style addressing (MinIO and most self-hosted services).' },
  {
    name: 'DOCPARSE_S3_PARTS_IN_FLIGHT',
    default: '4',
    description:
      'Parts of an upload (resumable or one PUT) sent to the bucket at a time (1–64); memory per upload in progress: this + 1 parts of 8 MiB, from a pool that keeps 5 for a minute after the last upload.',
  },
  {
    name: 'DOCPARSE_SMTP_URL',
    default: '(unset → e-mails kept in the outbox)',
    description:
      '`smtp://user:pass@host:587` (STARTTLS when the server offers it, certificate verified) or `smtps://…`: where activation and invitation e-mails go. Unset: they stay in the outbox (`docparse admin mail list`). The password is never logged.',
  },
  { name: 'DOCPARSE_MAIL_FROM', default: 'DocParse <no-reply@DASHBOARD_HOST>', description: 'From: of the e-mails the service sends.' },
  { name: 'LOG_LEVEL', default: 'info', description: 'pino log level (fatal, error, warn, info, debug, trace, silent).' },
  {
    name: 'DOCPARSE_OUTBOUND_ALLOW',
    default: '(none → public addresses only)',
    description:
      "Comma-separated CIDR ranges (or single addresses) that requests on a tenant's behalf (their storage endpoints) may reach besides public unicast, e.g. `10.0.0.0/8` for an on-premises MinIO. Loopback, private, link-local, unique-local, CGNAT, multicast, metadata and reserved addresses are refused otherwise (docs/operations.md).",
  },
  {
    name: 'DOCPARSE_ALLOW_HTTP_CALLBACKS',
    default: 'false',
    description:
      'Accept `http://` webhook `callbackUrl`s whose host is a loopback address (a receiver on the same machine, for development). Otherwise callbacks must be `https://`. Loopback is still refused by the outbound policy unless `DOCPARSE_OUTBOUND_ALLOW` lists it (docs/webhooks.md).',
  },
  {
    name: 'DOCPARSE_WEBHOOK_MAX_AGE_SECONDS',
    default: '86400',
    description:
      'How long a webhook is retried (exponential back-off from 5 s, at most 30 min apart) after its job ended or was replayed; then it is recorded as failed and can be replayed (60–604800).',
  },
];

export function loadConfig(env: Env = process.env, roles: Role[] = ALL_ROLES): Config {
  const problems: string[] = [];

  const int = (name: string, def: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return def;
    if (!/^\d+$/.test(raw.trim())) {
      problems.push(`${name}=${JSON.stringify(raw)} is not a whole number (expected ${min}–${max})`);
      return def;
    }
    const n = Number(raw);
    if (n < min || n > max) problems.push(`${name}=${raw} is out of range (expected ${min}–${max})`);
    return n;
  };
  const bool = (name: string, def: boolean): boolean => {
    const raw = env[name]?.trim().toLowerCase();
    if (raw === undefined || raw === '') return def;
    if (TRUE_WORDS.includes(raw)) return true;
    if (FALSE_WORDS.includes(raw)) return false;
    problems.push(`${name}=${JSON.stringify(env[name])} is not a boolean (expected true or false)`);
    return def;
  };
  const url = (name: string, def: string | null, protocols: string[]): string | null => {
    const raw = env[name];
    if (raw === undefined || raw === '') return def;
    try {
      const u = new URL(raw);
      if (!protocols.includes(u.protocol)) {
        problems.push(`${name} must use ${protocols.map((p) => p.replace(':', '://')).join(' or ')} (got ${u.protocol}//)`);
      }
      return raw.replace(/\/+$/, '');
    } catch {
      problems.push(`${name}=${JSON.stringify(raw)} is not a valid URL`);
      return def;
    }
  };

  /** A comma-separated list (blank entries dropped, duplicates once); `def` when unset or empty. */
  const listOf = (name: string, def: string[]): string[] => {
    const items = (env[name] ?? '')
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);
    return items.length ? [...new Set(items)] : def;
  };

  const port = int('PORT', 8080, 0, 65535);
  const host = env.HOST?.trim() || '127.0.0.1';
  if (!isHost(host)) problems.push(`HOST=${JSON.stringify(host)} is not a host name or IP address (e.g. 127.0.0.1, 0.0.0.0, ::)`);
  const dataDir = path.resolve(env.DOCPARSE_DATA_DIR?.trim() || './data');
  const databaseUrl = url('DATABASE_URL', null, ['postgres:', 'postgresql:']);
  const redisUrl = url('REDIS_URL', null, ['redis:', 'rediss:']);
  const baseUrl = url('DOCPARSE_BASE_URL', `http://localhost:${port}`, ['http:', 'https:'])!;
  const authUrl = url('DOCPARSE_AUTH_URL', baseUrl, ['http:', 'https:'])!;
  const dashboardUrl = url('DOCPARSE_DASHBOARD_URL', `${baseUrl}/dashboard`, ['http:', 'https:'])!;

  const region = env.DOCPARSE_REGION?.trim() || 'local';
  if (!/^[a-z0-9][a-z0-9-]{0,62}$/i.test(region)) problems.push(`DOCPARSE_REGION=${JSON.stringify(region)} must be letters, digits and dashes`);

  const regions = listOf('DOCPARSE_REGIONS', [region]);
  // The default is DOCPARSE_REGION, whose own check above has spoken already.
  if (env.DOCPARSE_REGIONS?.trim()) {
    for (const r of regions)
      if (!/^[a-z0-9][a-z0-9-]{0,62}$/i.test(r)) problems.push(`DOCPARSE_REGIONS: ${JSON.stringify(r)} must be letters, digits and dashes`);
  }
  let regionUrls: Record<string, string> | null = null;
  if (env.DOCPARSE_REGION_URLS?.trim()) {
    const table = RegionTable.parse(env.DOCPARSE_REGION_URLS);
    if (Array.isArray(table)) for (const p of table) problems.push(`DOCPARSE_REGION_URLS: ${p}`);
    else {
      regionUrls = Object.fromEntries(table.urls);
      // Every code this node answers for must have a place in the table.
      if (!table.regionOf(region)) problems.push(`DOCPARSE_REGION=${region} is in no region of DOCPARSE_REGION_URLS (${[...table.urls.keys()].join(', ')})`);
      for (const r of regions)
        if (r !== region && !table.regionOf(r))
          problems.push(`DOCPARSE_REGIONS: ${r} is in no region of DOCPARSE_REGION_URLS (${[...table.urls.keys()].join(', ')})`);
    }
  }
  const operatorEmails: string[] = [];
  for (const e of listOf('DOCPARSE_OPERATOR_EMAILS', [])) {
    try {
      operatorEmails.push(canonicalEmail(e));
    } catch (err) {
      if (!(err instanceof EmailAddressError)) throw err;
      problems.push(`DOCPARSE_OPERATOR_EMAILS: ${err.message}`);
    }
  }

  const oidcClientId = env.DOCPARSE_OIDC_CLIENT_ID?.trim() || null;
  const oidcIssuer = url('DOCPARSE_OIDC_ISSUER', 'https://accounts.google.com', ['http:', 'https:'])!;
  // A provider on plain http could be impersonated by anyone on the path: loopback only (local providers, tests).
  if (oidcIssuer.startsWith('http:') && !isLoopbackUrl(oidcIssuer)) {
    problems.push(`DOCPARSE_OIDC_ISSUER=${JSON.stringify(oidcIssuer)} must use https:// (plain http is accepted only on a loopback address)`);
  }
  const oidcClientSecret = env.DOCPARSE_OIDC_CLIENT_SECRET?.trim() || null;
  if (oidcClientSecret && !oidcClientId) problems.push('DOCPARSE_OIDC_CLIENT_SECRET is set without DOCPARSE_OIDC_CLIENT_ID');

  const demoClientId = env.DOCPARSE_DEMO_CLIENT_ID?.trim() || null;
  if (demoClientId && !/^[A-Za-z0-9._-]{3,128}$/.test(demoClientId)) {
    problems.push('DOCPARSE_DEMO_CLIENT_ID must be 3–128 characters of letters, digits, ".", "_" or "-"');
  }
  const demoClientSecret = env.DOCPARSE_DEMO_CLIENT_SECRET || null;
  if (demoClientSecret !== null && demoClientSecret.length < 16) problems.push('DOCPARSE_DEMO_CLIENT_SECRET must be at least 16 characters');

  const masterKey = env.DOCPARSE_MASTER_KEY || null;
  if (masterKey !== null && masterKey.length < 32) problems.push('DOCPARSE_MASTER_KEY must be at least 32 characters');
  if (masterKey === null && databaseUrl) {
    problems.push('DOCPARSE_MASTER_KEY is required with DATABASE_URL (every node must share it to read signing keys)');
  }

  const cpus = os.availableParallelism();
  const before = problems.length;
  const workerThreads = int('DOCPARSE_WORKER_THREADS', cpus, 1, 256);
  const threadsValid = problems.length === before;
  const heavySlots = int('DOCPARSE_HEAVY_SLOTS', Math.max(1, Math.floor((threadsValid ? workerThreads : cpus) / 2)), 1, 256);
  // Only compare two valid values, so one bad value gives one message.
  if (threadsValid && heavySlots > workerThreads) problems.push(`DOCPARSE_HEAVY_SLOTS=${heavySlots} exceeds DOCPARSE_WORKER_THREADS=${workerThreads}`);
  const heavySlotsPerTenant = int('DOCPARSE_HEAVY_SLOTS_PER_TENANT', defaultHeavySlotsPerTenant(heavySlots), 1, 256);

  const logLevel = env.LOG_LEVEL?.trim().toLowerCase() || 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    problems.push(`LOG_LEVEL=${JSON.stringify(env.LOG_LEVEL)} must be one of fatal, error, warn, info, debug, trace, silent`);
  }

  // The parsers' settings, handed to the parsing process and its threads.
  const MiB = 1024 * 1024;
  const MAX = Number.MAX_SAFE_INTEGER;
  const D = DEFAULT_PARSER_SETTINGS;
  /** A limit with older names still read (the archive limits were GIS-only): the first one set wins; each set one is checked. */
  const intOf = (names: string[], def: number, min: number, max: number): number => {
    const values = names.filter((n) => env[n] !== undefined && env[n] !== '').map((n) => int(n, def, min, max));
    return values.length ? values[0] : def;
  };
  /** An absolute path, existing or not (one with no engine at it means "none"). */
  const absolutePath = (name: string): string | null => {
    const raw = env[name]?.trim() || null;
    if (raw && !path.isAbsolute(raw)) problems.push(`${name}=${JSON.stringify(env[name])} must be an absolute path`);
    return raw;
  };
  const officeRender = env.DOCPARSE_OFFICE_RENDER?.trim().toLowerCase() || D.office.render;
  const RENDER_WORDS: Record<string, OfficeRender> = { always: 'always', auto: 'auto', off: 'off', '0': 'off', false: 'off' };
  if (!RENDER_WORDS[officeRender]) problems.push(`DOCPARSE_OFFICE_RENDER=${JSON.stringify(env.DOCPARSE_OFFICE_RENDER)} must be always, auto or off`);
  const parsers: ParserSettings = {
    archive: {
      maxBytes: intOf(['DOCPARSE_ARCHIVE_MAX_BYTES', 'DOCPARSE_GIS_MAX_UNZIPPED_BYTES'], D.archive.maxBytes, 1, MAX),
      maxEntries: intOf(['DOCPARSE_ARCHIVE_MAX_ENTRIES', 'DOCPARSE_GIS_MAX_ZIP_ENTRIES'], D.archive.maxEntries, 1, MAX),
      maxRatio: intOf(['DOCPARSE_ARCHIVE_MAX_RATIO', 'DOCPARSE_GIS_MAX_ZIP_RATIO'], D.archive.maxRatio, 1, MAX),
      maxDepth: int('DOCPARSE_ARCHIVE_MAX_DEPTH', D.archive.maxDepth, 0, 16),
    },
    memory: { maxBytes: int('DOCPARSE_TASK_MAX_MEMORY_MB', D.memory.maxBytes / MiB, 64, 1024 * 1024) * MiB },
    cad: { maxBytes: int('DOCPARSE_CAD_MAX_BYTES', D.cad.maxBytes, 1, MAX) },
    parquet: { maxRowGroupBytes: int('DOCPARSE_PARQUET_MAX_ROW_GROUP_BYTES', D.parquet.maxRowGroupBytes, 1, MAX) },
    office: {
      render: RENDER_WORDS[officeRender] ?? D.office.render,
      maxPartBytes: int('DOCPARSE_OFFICE_MAX_PART_MB', D.office.maxPartBytes / MiB, 1, MAX / MiB) * MiB,
      maxSheetXmlBytes: int('DOCPARSE_OFFICE_MAX_SHEET_XML_MB', D.office.maxSheetXmlBytes / MiB, 1, MAX / MiB) * MiB,
      convertTimeoutMs: int('DOCPARSE_SOFFICE_TIMEOUT_MS', D.office.convertTimeoutMs, 1, MAX),
    },
    gis: {
      maxInlineFeatures: int('DOCPARSE_GIS_MAX_INLINE_FEATURES', D.gis.maxInlineFeatures, 1, MAX),
      flatGeobuf: bool('DOCPARSE_GIS_FGB', D.gis.flatGeobuf),
    },
    pdf: { optimizedPdfium: bool('DOCPARSE_PDFIUM_OPTIMIZED', D.pdf.optimizedPdfium) },
    engines: {
      soffice: absolutePath('DOCPARSE_SOFFICE'),
      tessdataDir: absolutePath('DOCPARSE_TESSDATA_DIR'),
      tessdataPrefix: env.TESSDATA_PREFIX?.trim() || null,
      searchPath: (env.PATH ?? '').split(path.delimiter).filter(Boolean),
    },
  };

  const bucket = env.DOCPARSE_S3_BUCKET?.trim() || null;
  let s3: Config['s3'] = null;
  if (bucket) {
    const accessKeyId = env.DOCPARSE_S3_ACCESS_KEY_ID?.trim();
    const secretAccessKey = env.DOCPARSE_S3_SECRET_ACCESS_KEY;
    if (!accessKeyId) problems.push('DOCPARSE_S3_ACCESS_KEY_ID is required with DOCPARSE_S3_BUCKET');
    if (!secretAccessKey) problems.push('DOCPARSE_S3_SECRET_ACCESS_KEY is required with DOCPARSE_S3_BUCKET');
    s3 = {
      endpoint: url('DOCPARSE_S3_ENDPOINT', null, ['http:', 'https:']),
      region: env.DOCPARSE_S3_REGION?.trim() || 'us-east-1',
      bucket,
      prefix: env.DOCPARSE_S3_PREFIX?.trim().replace(/^\/+|\/+$/g, '') ?? '',
      accessKeyId: accessKeyId ?? '',
      secretAccessKey: secretAccessKey ?? '',
      forcePathStyle: bool('DOCPARSE_S3_FORCE_PATH_STYLE', false),
      partsInFlight: int('DOCPARSE_S3_PARTS_IN_FLIGHT', 4, 1, 64), // PARTS_IN_FLIGHT in s3-blob-store.ts
    };
  }

  // The SMTP URL carries a password: its problems are told without repeating it.
  let smtpUrl: string | null = env.DOCPARSE_SMTP_URL?.trim() || null;
  if (smtpUrl) {
    let u: URL | null = null;
    try {
      u = new URL(smtpUrl);
    } catch {
      problems.push('DOCPARSE_SMTP_URL is not a valid URL (expected smtp://user:pass@host:587 or smtps://…)');
    }
    if (u && !['smtp:', 'smtps:'].includes(u.protocol)) problems.push(`DOCPARSE_SMTP_URL must use smtp:// or smtps:// (got ${u.protocol}//)`);
    else if (u && !u.hostname) problems.push('DOCPARSE_SMTP_URL has no host');
    if (!u) smtpUrl = null;
  }
  const mailFrom = env.DOCPARSE_MAIL_FROM?.trim() || defaultMailFrom(dashboardUrl);
  if (!/^(?:[^\s@<>]+@[^\s@<>]+|[^<>\r\n]*<[^\s@<>]+@[^\s@<>]+>)$/.test(mailFrom)) {
    problems.push(`DOCPARSE_MAIL_FROM=${JSON.stringify(env.DOCPARSE_MAIL_FROM)} is not an address (e.g. "DocParse <no-reply@example.com>")`);
  }

  const outboundAllow = listOf('DOCPARSE_OUTBOUND_ALLOW', []);
  for (const r of outboundAllow)
    if (!parseRange(r)) problems.push(`DOCPARSE_OUTBOUND_ALLOW: ${JSON.stringify(r)} is not a CIDR range or an IP address (e.g. 10.0.0.0/8, fd00::/8)`);

  const config: Config = {
    port,
    host,
    dataDir,
    databaseUrl,
    redisUrl,
    baseUrl,
    authUrl,
    dashboardUrl,
    region,
    regions,
    regionUrls,
    regionForwarding: bool('DOCPARSE_REGION_FORWARDING', false),
    regionForwardTimeoutSeconds: int('DOCPARSE_REGION_FORWARD_TIMEOUT_SECONDS', 30, 1, 3600),
    operatorEmails,
    nodeId: env.DOCPARSE_NODE_ID?.trim() || `${os.hostname()}-${process.pid}`,
    demoClientId,
    demoClientSecret,
    seedDemo: bool('DOCPARSE_SEED_DEMO', databaseUrl === null),
    masterKey,
    retentionSeconds: int('DOCPARSE_RETENTION_SECONDS', 3 * 3600, 1, 365 * 24 * 3600),
    workerThreads,
    heavySlots,
    heavySlotsPerTenant,
    queueFairTurn: int('DOCPARSE_QUEUE_FAIR_TURN', 8, 1, 100_000),
    taskTimeoutSeconds: int('DOCPARSE_TASK_TIMEOUT_SECONDS', 600, 1, 24 * 3600),
    workerMaxHeapMb: int('DOCPARSE_WORKER_MAX_HEAP_MB', 2048, 64, 64 * 1024),
    parserMaxRssMb: int('DOCPARSE_PARSER_MAX_RSS_MB', Math.max(512, Math.floor((os.totalmem() / 1048576) * 0.75)), 128, 1024 * 1024),
    parserNodeArgs: (env.DOCPARSE_PARSER_NODE_ARGS ?? '').split(' ').filter(Boolean),
    maxAttempts: int('DOCPARSE_MAX_ATTEMPTS', 3, 1, 20),
    maxHeaderBytes: int('DOCPARSE_MAX_HEADER_BYTES', 16 * 1024, 1024, 1024 * 1024),
    // uWS resets connections whose Content-Length exceeds 999,999,999.
    directUploadMaxBytes: int('DOCPARSE_DIRECT_UPLOAD_MAX_BYTES', 900_000_000, 1, 999_999_999),
    shutdownGraceSeconds: int('DOCPARSE_SHUTDOWN_GRACE_SECONDS', 30, 0, 3600),
    drainNoticeSeconds: int('DOCPARSE_DRAIN_NOTICE_SECONDS', redisUrl ? 2 : 0, 0, 600),
    trustProxy: bool('DOCPARSE_TRUST_PROXY', false),
    logLevel,
    roles,
    s3,
    smtpUrl,
    mailFrom,
    oidc: oidcClientId ? { issuer: oidcIssuer, clientId: oidcClientId, clientSecret: oidcClientSecret } : null,
    sessionIdleMinutes: int('DOCPARSE_SESSION_IDLE_MINUTES', 120, 1, 7 * 24 * 60),
    sessionMaxHours: int('DOCPARSE_SESSION_MAX_HOURS', 24, 1, 90 * 24),
    parsers,
    outboundAllow,
    allowHttpCallbacks: bool('DOCPARSE_ALLOW_HTTP_CALLBACKS', false),
    webhookMaxAgeSeconds: int('DOCPARSE_WEBHOOK_MAX_AGE_SECONDS', 86_400, 60, 604_800),
  };
  if (problems.length) throw new ConfigError(problems);
  return config;
}

/** Half a node's heavy slots, at least one: a tenant alone uses half, two tenants never wait on each other. */
export function defaultHeavySlotsPerTenant(heavySlots: number): number {
  return Math.max(1, Math.floor(heavySlots / 2));
}

/** http://127.x.x.x, http://[::1] or http://localhost. */
function isLoopbackUrl(u: string): boolean {
  const host = new URL(u).hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** An IPv4/IPv6 address or a DNS host name (what uWS can bind), not a URL. */
function isHost(h: string): boolean {
  if (isIP(h)) return true;
  return /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/.test(h);
}
