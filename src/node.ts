// Wires one node: control plane, job backend, blob store, identity, HTTP front, worker pool
// and loop, retention. Roles decide which parts run; `serve` runs all of them.
import fs from 'node:fs/promises';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { createLogger } from './log.js';
import { Sealer } from './crypto/sealed.js';
import { resolveMasterKey } from './data-dir/master-key.js';
import { openControlPlaneStore } from './tenancy/sql-store.js';
import { seedDemoWorkspace } from './manage/demo-workspace.js';
import type { ControlPlaneStore } from './tenancy/types.js';
import { openJobBackend, type JobBackend } from './jobs/open.js';
import { recoverUnfinished } from './jobs/embedded-queue.js';
import { checkRedisDurability } from './jobs/redis-durability.js';
import { DiskBlobStore } from './storage/disk-blob-store.js';
import { OutboundPolicy } from './outbound/outbound-policy.js';
import { BlobRouter } from './storage/router.js';
import { S3BlobStore } from './storage/s3-blob-store.js';
import { createIdentity, type Identity } from './identity/index.js';
import { HttpServer } from './http/server.js';
import { RegionRouter } from './http/regions.js';
import { RegionTable } from './http/region-table.js';
import { buildOpenApi } from './http/openapi.js';
import { healthRoutes, type ReadinessCheck } from './api/health.js';
import { liveDocumentRoutes } from './api/live-routes.js';
import type { LiveStatus } from './api/live-status.js';
import { Intake } from './api/intake.js';
import { uploadRoutes } from './api/uploads.js';
import { Webhooks } from './webhooks/webhooks.js';
import { webhookReplayRoute } from './webhooks/replay-route.js';
import { LimitsCache } from './tenancy/plan-limits.js';
import { openQuotaKeeper } from './tenancy/quota/open.js';
import type { QuotaKeeper } from './tenancy/quota/keeper.js';
import { openChangeFeed } from './tenancy/open-change-feed.js';
import { ArtifactSchema } from './api/schemas.js';
import { FAMILIES } from './formats/registry.js';
import { NodeMetrics } from './metrics/node-metrics.js';
import { metricsRoute } from './metrics/metrics-route.js';
import { QueueDepthCache } from './jobs/depth-cache.js';

/** The artifact envelope and each family's `content` as it declares it, published with the OpenAPI document. */
const CONTENT_SCHEMAS = { Artifact: ArtifactSchema, ...Object.fromEntries(FAMILIES.flatMap((f) => (f.content ? [[f.content.name, f.content.schema]] : []))) };
import { ParseHost } from './pipeline/parse-host.js';
import { pdfiumBinary } from './formats/pdf/pdfium-loader.js';
import { initEngineInventory } from './engines/inventory.js';
import { WorkerLoop } from './pipeline/worker-loop.js';
import { RetentionSweeper } from './pipeline/retention.js';
import { acquireDataDirLock, describeHolder, type DataDirLock } from './data-dir/lock.js';
import { startLocalManagement, type LocalManagement } from './manage/local-management.js';
import { OperatorCredential } from './data-dir/operator-credential.js';
import { slowFileCreationWarning } from './data-dir/filesystem.js';
import { createManageDeps, manageStores } from './manage/deps.js';
import { startOutboxSender } from './mail/sender.js';
import { tenantMailHooks } from './tenancy/tenant-mail.js';
import { mailSettingsOf } from './mail/settings.js';
import { createManageAuthenticator, operatorKeyCheck, type SessionResolver } from './manage/principal.js';
import { manageApiRoutes, type ManageEvents } from './manage/api/index.js';
import { createDashboardAuth, type DashboardAuthService } from './dashboard/auth/index.js';
import { mountDashboard } from './dashboard/index.js';

const require = createRequire(import.meta.url);

/** Light-lane handlers per parse thread (see the worker loop's wiring below). */
const LIGHT_HANDLERS_PER_THREAD = 4;
export const VERSION: string = (require('../package.json') as { version: string }).version;

export interface RunningNode {
  config: Config;
  port: number;
  logger: Logger;
  controlPlane: ControlPlaneStore;
  jobs: JobBackend;
  blobs: BlobRouter;
  identity: Identity;
  /** Holds and charges Document Units (what a cancel's release is checked against in tests). */
  quota: QuotaKeeper;
  http: HttpServer;
  pool: ParseHost | null;
  retention: RetentionSweeper;
  /** Credentials of the demo app when this start created it (shown once). */
  demoCredentials: { clientId: string; clientSecret: string } | null;
  /** The local management endpoint (loopback), when this node holds its data dir's lock. */
  management: { url: string } | null;
  /** The dashboard, on a node with the api role. */
  dashboard: {
    url: string;
    /** Whether users sign in through an OpenID provider (else only the local operator signs in). */
    oidc: boolean;
    /** A new one-time local operator sign-in link (15 minutes, one use): for the person at the terminal only. */
    createSignInLink(): Promise<string>;
  } | null;
  /** Graceful stop: stop accepting, finish in-flight requests and jobs, close stores. */
  close(): Promise<void>;
}

/** Browser origins the demo app accepts: the dashboard's and the API's own host. */
function demoDomains(config: Config): string[] {
  const hosts = new Set<string>();
  for (const u of [config.dashboardUrl, config.baseUrl]) {
    const host = new URL(u).host;
    if (!host.endsWith(':0')) hosts.add(host);
  }
  if (config.port !== 0) hosts.add(`localhost:${config.port}`);
  return [...hosts].slice(0, 3);
}

/** PGlite and the embedded job store allow one process per data dir. */
export function usesDataDirExclusively(config: Config): boolean {
  return !config.databaseUrl || !config.redisUrl;
}

/** How long a start waits for a `docparse admin` holding the data dir, or for a lock from another scope to go stale. */
const LOCK_WAIT_MS = 40_000;

type StartOptions = {
  logger?: Logger;
  redisPrefix?: string;
  /** Who is signed in behind a management request, instead of the dashboard's sessions (tests). */
  manageSessions?: SessionResolver;
  /** Dashboard sign-in tuning (tests): failed operator-key sign-in limits, clock. */
  dashboardAuth?: Pick<Parameters<typeof createDashboardAuth>[0], 'failureLimits' | 'now'>;
  /** What follows management changes (the mailer: activation e-mail, invitations). */
  manageEvents?: ManageEvents;
};

export async function startNode(config: Config, opts: StartOptions = {}): Promise<RunningNode> {
  const logger = opts.logger ?? createLogger(config.logLevel, { nodeId: config.nodeId });
  await fs.mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  // Before anything opens the data dir's single-writer state. A node holding it refuses this
  // start at once; a `docparse admin` holding it is waited for.
  const lock = usesDataDirExclusively(config)
    ? await acquireDataDirLock(config.dataDir, 'node', {
        waitMs: LOCK_WAIT_MS,
        waitFor: (h) => h.role === 'admin' || h.foreign,
        onWait: (h) => logger.warn({ dataDir: config.dataDir, holder: h }, `waiting for the data dir, held by ${describeHolder(h)}`),
      })
    : null;
  const fsWarning = slowFileCreationWarning(config.dataDir);
  if (fsWarning) logger.warn({ dataDir: config.dataDir }, fsWarning);
  // What a failed start has opened, closed again in reverse order before the lock is released.
  const undo: (() => Promise<unknown>)[] = [];
  try {
    return await wireNode(config, opts, logger, lock, undo);
  } catch (err) {
    for (const close of undo.reverse()) await close().catch(() => {});
    await lock?.release();
    throw err;
  }
}

async function wireNode(config: Config, opts: StartOptions, logger: Logger, lock: DataDirLock | null, undo: (() => Promise<unknown>)[]): Promise<RunningNode> {
  const sealer = new Sealer(await resolveMasterKey(config));
  const controlPlane = await openControlPlaneStore({ databaseUrl: config.databaseUrl ?? undefined, dataDir: config.dataDir });
  undo.push(() => controlPlane.close());
  // E-mail (tenant activation, invitations) goes through the outbox: sent until accepted.
  const mailer = startOutboxSender({ db: controlPlane.db, settings: mailSettingsOf(config), logger, senderId: config.nodeId, hooks: tenantMailHooks });
  undo.push(() => mailer.stop());

  let demoCredentials: RunningNode['demoCredentials'] = null;
  if (config.seedDemo) {
    const seeded = await seedDemoWorkspace(controlPlane, {
      region: config.region,
      clientId: config.demoClientId ?? undefined,
      clientSecret: config.demoClientSecret ?? undefined,
      allowedDomains: demoDomains(config),
    });
    if (seeded.created && seeded.clientSecret) demoCredentials = { clientId: seeded.clientId, clientSecret: seeded.clientSecret };
  }

  const jobs = await openJobBackend({
    redisUrl: config.redisUrl ?? undefined,
    dataDir: config.dataDir,
    prefix: opts.redisPrefix,
    log: logger,
    fairTurn: config.queueFairTurn,
  });
  undo.push(() => jobs.close());
  // Holds and charges Document Units: in process on PGlite, in Redis with PostgreSQL (one per node, shared by intake and worker loop).
  const quota = openQuotaKeeper({ controlPlane, redisUrl: config.redisUrl, prefix: opts.redisPrefix, log: logger });
  undo.push(() => quota.close());
  // Changes to apps, plans and tenants reach every node's caches within a second (in process on one node).
  const changes = openChangeFeed({ redisUrl: config.redisUrl, prefix: opts.redisPrefix, log: logger });
  undo.push(() => changes.close());
  // Accepted jobs live only in Redis: say so at start when it would lose them.
  if (config.redisUrl) await checkRedisDurability(config.redisUrl, logger);
  const nodeStore = config.s3 ? new S3BlobStore(config.s3) : new DiskBlobStore(path.join(config.dataDir, 'blobs'));
  // Requests on a tenant's behalf (their storage) reach public addresses and the operator's ranges only.
  const outbound = new OutboundPolicy({ allow: config.outboundAllow, log: logger });
  // Signed webhooks: every writer of job states goes through the watcher; every node sends.
  const webhooks = new Webhooks({
    db: controlPlane.db,
    sealer,
    outbound,
    logger,
    allowHttpCallbacks: config.allowHttpCallbacks,
    maxAgeSeconds: config.webhookMaxAgeSeconds,
    retentionSeconds: config.retentionSeconds,
    nodeId: config.nodeId,
  });
  jobs.store = webhooks.watch(jobs.store);
  webhooks.startSender();
  undo.push(() => webhooks.stop());
  const blobs = new BlobRouter(nodeStore, controlPlane, sealer, outbound);
  const identity = await createIdentity({ store: controlPlane, sealer, authUrl: config.authUrl, counters: jobs.counters, logger });
  // Multi-region: requests of another region's apps are forwarded there or refused, never served here.
  const regions = config.regionUrls
    ? new RegionRouter({
        table: new RegionTable(new Map(Object.entries(config.regionUrls))),
        local: config.region,
        forwarding: config.regionForwarding,
        timeoutMs: config.regionForwardTimeoutSeconds * 1000,
        outboundAllow: config.outboundAllow,
        logger,
      })
    : null;
  // Counted in place on the request and job paths; turned into Prometheus text only on a scrape of /metrics.
  const metrics = new NodeMetrics();
  const http = new HttpServer({
    logger,
    maxHeaderBytes: config.maxHeaderBytes,
    trustProxy: config.trustProxy,
    authenticate: identity.authenticate,
    regions,
    observeRequest: metrics.requests.observe,
  });

  const has = (r: string) => config.roles.includes(r as never);
  // The management API's stores share the control plane's connection.
  const stores = manageStores(controlPlane);
  const { members, operatorKeys } = stores;
  // What engines this node has, where config.parsers.engines says to look (uploads that need a missing one are refused).
  initEngineInventory(config.parsers);
  // Parsing runs in a supervised child process: no document can take this one down.
  const pool = has('worker')
    ? new ParseHost({
        threads: config.workerThreads,
        taskTimeoutMs: config.taskTimeoutSeconds * 1000,
        maxHeapMb: config.workerMaxHeapMb,
        // WASM heaps never shrink: a thread that grew past this is replaced after its task.
        recycleAboveMb: Math.max(256, config.workerMaxHeapMb),
        maxProcessRssMb: config.parserMaxRssMb,
        nodeArgs: config.parserNodeArgs,
        parsers: config.parsers,
        logger,
      })
    : null;
  if (pool && !(await pool.whenReady(60_000))) logger.warn('the parsing process is not up yet; jobs wait for it');
  if (pool) undo.push(() => pool.close());

  const checks: ReadinessCheck[] = [
    { name: 'controlPlane', check: () => controlPlane.ping() },
    { name: 'jobStore', check: () => jobs.store.ping() },
    { name: 'blobStore', check: () => blobs.nodeStore.ping() },
  ];
  if (has('auth')) checks.push({ name: 'signingKeys', check: () => identity.ready() });
  if (pool)
    checks.push({
      name: 'workerPool',
      check: async () => {
        if (!pool.ready()) throw new Error('the parsing process is not up');
      },
    });

  // One read of the queue's depth a second at most, shared by node-state and /metrics.
  const depth = new QueueDepthCache(jobs.queue);
  const parser = () => (pool ? { restarts: pool.restarts, rssBytes: pool.rssBytes } : null);
  metrics.attach({
    activeRequests: () => http.activeRequests,
    accepting: () => http.accepting,
    pool: () => pool?.stats() ?? null,
    parserRestarts: () => parser()?.restarts ?? null,
    parserRssBytes: () => parser()?.rssBytes ?? null,
    queueDepth: () => depth.get(),
  });
  http.add(metricsRoute(metrics, operatorKeyCheck(stores.operatorKeys, jobs.counters)));

  let openapiDoc: Record<string, unknown> | null = null;
  const health = healthRoutes({
    nodeId: config.nodeId,
    region: config.region,
    roles: config.roles,
    version: VERSION,
    checks,
    activeRequests: () => http.activeRequests,
    accepting: () => http.accepting,
    poolStats: () => pool?.stats() ?? null,
    parser,
    queueDepth: () => depth.get(),
    openapi: () =>
      (openapiDoc ??= buildOpenApi({
        routes: http.router.routes,
        api: 'v1',
        baseUrl: config.baseUrl,
        authUrl: config.authUrl,
        version: VERSION,
        components: CONTENT_SCHEMAS,
      })),
  });
  for (const r of health.routes) http.add(r);
  // Dashboard sessions are the management API's session cookies too.
  const dashboardAuth: DashboardAuthService | null = has('api')
    ? createDashboardAuth({
        config,
        db: controlPlane.db,
        members,
        operatorKeys,
        counters: jobs.counters,
        csrfKey: sealer.deriveKey('docparse dashboard csrf v1'),
        logger,
        ...opts.dashboardAuth,
      })
    : null;
  // One set of management dependencies serves the public port, the dashboard and the loopback listener.
  const manageDeps = createManageDeps({
    controlPlane,
    stores,
    config,
    sealer,
    keyring: identity.keyring,
    counters: jobs.counters,
    outbound,
    authenticate: createManageAuthenticator({
      operatorKeys,
      members,
      operatorEmails: config.operatorEmails,
      sessions: opts.manageSessions ?? dashboardAuth?.resolveSession,
    }),
    // The outbox is filled in the same transaction; the sender need not wait for its next pass.
    events: { tenantActivated: () => mailer.nudge(), invitationCreated: () => mailer.nudge(), ...opts.manageEvents },
    changes,
  });
  if (has('api')) {
    let manageDoc: Record<string, unknown> | null = null;
    const manageRoutes = manageApiRoutes(
      manageDeps,
      () => (manageDoc ??= buildOpenApi({ routes: http.router.routes, api: 'manage', baseUrl: config.baseUrl, authUrl: config.authUrl, version: VERSION })),
    );
    for (const r of manageRoutes) http.add(r);
    mountDashboard({ http, auth: dashboardAuth!, manage: manageDeps, manageRoutes, logger });
  }
  if (has('auth')) for (const r of identity.routes) http.add(r);
  let live: LiveStatus | null = null;
  if (has('api')) {
    const intake = new Intake({
      jobs: jobs.store,
      queue: jobs.queue,
      blobs,
      counters: jobs.counters,
      limits: new LimitsCache(controlPlane, { changes }),
      controlPlane,
      quota,
      retentionSeconds: config.retentionSeconds,
      directUploadMaxBytes: config.directUploadMaxBytes,
      officeRender: config.parsers.office.render,
      logger,
      metrics: metrics.jobs,
      webhooks,
    });
    // The documents API, with live status (events, long poll, Prefer: wait) and cancel.
    const documents = liveDocumentRoutes({ intake, events: jobs.events, controlPlane, quota, logger });
    live = documents.live;
    for (const r of documents.routes) http.add(r);
    const uploads = uploadRoutes({
      intake,
      baseUrl: config.baseUrl,
      signingKey: sealer.deriveKey('docparse upload urls v1'),
      // An open session never outlives the retention window of the job it becomes.
      sessionTtlSeconds: Math.min(3600, config.retentionSeconds),
    });
    for (const r of uploads) http.add(r);
    http.add(webhookReplayRoute({ jobs: jobs.store, webhooks }));
  }

  const retention = new RetentionSweeper(jobs.store, blobs, logger, Math.min(60_000, Math.max(1000, (config.retentionSeconds * 1000) / 4)));
  let loop: WorkerLoop | null = null;
  if (pool) {
    loop = new WorkerLoop({
      store: jobs.store,
      queue: jobs.queue,
      events: jobs.events,
      blobs,
      pool,
      controlPlane,
      quota,
      logger,
      maxAttempts: config.maxAttempts,
      // A light job's handler spends much of its time outside the pool (state writes, moving
      // the artifact, the ledger's group commit): more handlers than threads keep the threads
      // fed; the pool queues what they hand it.
      lightConcurrency: LIGHT_HANDLERS_PER_THREAD * config.workerThreads,
      heavyConcurrency: config.heavySlots,
      heavyPerTenant: config.heavySlotsPerTenant,
      scratchDir: path.join(config.dataDir, 'work'),
      metrics: metrics.jobs,
    });
    loop.start();
    if (jobs.kind === 'embedded') {
      const n = await recoverUnfinished(jobs.store, jobs.queue);
      if (n) logger.info({ jobs: n }, 'resumed unfinished jobs after restart');
    }
    retention.start();
  }

  const port = await http.listen(config.host, config.port);
  undo.push(() => http.drain(0));
  // `docparse admin` comes through this node while it holds the data dir: the management API
  // on a loopback listener, opened by the credential the node writes into the data dir.
  let management: LocalManagement | null = null;
  let credential: OperatorCredential | null = null;
  if (lock) {
    credential = await OperatorCredential.create(config.dataDir);
    const made = credential;
    undo.push(() => made.remove());
    management = await startLocalManagement({
      deps: manageDeps,
      credential,
      createSignInLink: dashboardAuth ? () => dashboardAuth.createSignInLink() : null,
      logger,
      maxHeaderBytes: config.maxHeaderBytes,
    });
    const listening = management;
    undo.push(() => listening.close(0));
  }
  await lock?.update({ host: config.host, port, manageUrl: management?.url ?? null });
  // Which PDFium binary the workers run: the build's re-optimised one, or the package's and why.
  const binary = pool ? pdfiumBinary(config.parsers.pdf.optimizedPdfium) : null;
  const pdfium = binary ? (binary.optimized ? 'optimized' : `package binary: ${binary.reason}`) : undefined;
  logger.info(
    { port, host: config.host, roles: config.roles, controlPlane: config.databaseUrl ? 'postgresql' : 'pglite', jobs: jobs.kind, pdfium },
    'docparse listening',
  );

  let closing: Promise<void> | null = null;
  return {
    config,
    port,
    logger,
    controlPlane,
    jobs,
    blobs,
    identity,
    quota,
    http,
    pool,
    retention,
    demoCredentials,
    management: management ? { url: management.url } : null,
    dashboard: dashboardAuth ? { url: config.dashboardUrl, oidc: config.oidc !== null, createSignInLink: () => dashboardAuth.createSignInLink() } : null,
    close: () =>
      (closing ??= (async () => {
        // One grace period for the whole stop, requests and running jobs alike. At once: the
        // node says it drains and takes no new job; it answers for the notice period, so a
        // balancer reading node-state moves away, then closes its listener and finishes.
        const deadline = Date.now() + config.shutdownGraceSeconds * 1000;
        const left = () => Math.max(0, deadline - Date.now());
        http.beginDrain();
        live?.endStreams(); // open event streams: their clients reconnect to a node that stays
        const jobsStopped = loop?.stop(deadline);
        await new Promise((r) => setTimeout(r, Math.min(left(), config.drainNoticeSeconds * 1000)));
        await Promise.all([http.drain(left()), management?.close(left())]);
        await credential?.remove();
        await retention.stop();
        await jobsStopped;
        await Promise.race([jobs.close(), new Promise((r) => setTimeout(r, Math.max(left(), 5000)).unref())]);
        await pool?.close();
        health.stop();
        await mailer.stop();
        await webhooks.stop();
        await quota.close();
        await changes.close();
        await controlPlane.close();
        await lock?.release();
        logger.info('docparse stopped');
      })()),
  };
}
