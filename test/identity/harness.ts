// Test harness for identity: a PGlite control-plane store in a temp dir, HTTP nodes (real
// uWS servers on 127.0.0.1:0) carrying the identity routes plus one bearer-protected route,
// and builders for tenants/plans/apps with real scrypt-hashed secrets.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { Sealer } from '../../src/crypto/sealed.js';
import { HttpServer } from '../../src/http/server.js';
import type { RouteDef } from '../../src/http/route.js';
import { EmbeddedRateCounters } from '../../src/jobs/embedded-counters.js';
import type { RateCounters, WindowLimit, WindowReservation } from '../../src/jobs/types.js';
import { openControlPlaneStore } from '../../src/tenancy/sql-store.js';
import type { App, ControlPlaneStore, Plan } from '../../src/tenancy/types.js';
import { createIdentity, type Identity, type IdentityOptions } from '../../src/identity/index.js';
import { generateClientId, generateClientSecret, hashSecret } from '../../src/identity/secrets.js';
import { planInput } from '../tenancy/fixtures.js';

export const MASTER_KEY = 'test-master-key-0123456789abcdef0123456789';

/** A clock the test moves by hand; starts at the real time. */
export class TestClock {
  t = Date.now();
  now = () => this.t;
  advance(seconds: number): void {
    this.t += seconds * 1000;
  }
}

/** Counters whose state a test can reset (all test requests share one address). */
export class ResettableCounters implements RateCounters {
  private impl: EmbeddedRateCounters;
  constructor(private readonly clock: TestClock) {
    this.impl = new EmbeddedRateCounters({ now: clock.now });
  }
  reset(): void {
    this.impl = new EmbeddedRateCounters({ now: this.clock.now });
  }
  addToWindow(key: string, amount: number, windowSeconds: number): Promise<number> {
    return this.impl.addToWindow(key, amount, windowSeconds);
  }
  reserveInWindow(limits: WindowLimit[], windowSeconds: number): Promise<WindowReservation> {
    return this.impl.reserveInWindow(limits, windowSeconds);
  }
  releaseInWindow(keys: string[], windowSeconds: number, window: number): Promise<void> {
    return this.impl.releaseInWindow(keys, windowSeconds, window);
  }
  close(): Promise<void> {
    return this.impl.close();
  }
}

export interface TestStore {
  store: ControlPlaneStore;
  close(): Promise<void>;
}

export async function openTestStore(): Promise<TestStore> {
  const dataDir = await mkdtemp(join(tmpdir(), 'dp-identity-'));
  const store = await openControlPlaneStore({ dataDir });
  return {
    store,
    close: async () => {
      await store.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The trivial protected route: echoes the principal. */
export const whoamiRoute: RouteDef = {
  method: 'GET',
  path: '/api/v1/whoami',
  operationId: 'whoami',
  summary: 'test',
  tags: ['test'],
  auth: 'bearer',
  responses: { 200: { description: 'principal' } },
  handler: async (ctx) => ({ status: 200, json: ctx.principal }),
};

export interface TestNode {
  server: HttpServer;
  identity: Identity;
  authUrl: string;
  port: number;
  close(): Promise<void>;
}

export async function startNode(opts: {
  store: ControlPlaneStore;
  clock: TestClock;
  counters?: RateCounters;
  masterKey?: string;
  cache?: boolean;
  identity?: Partial<IdentityOptions>;
  /** Take the client address from X-Forwarded-For (DOCPARSE_TRUST_PROXY). */
  trustProxy?: boolean;
}): Promise<TestNode> {
  const logger = pino({ level: 'silent' });
  let identity: Identity | null = null;
  const server = new HttpServer({
    logger,
    maxHeaderBytes: 16 * 1024,
    trustProxy: opts.trustProxy ?? false,
    authenticate: (ctx) => identity!.authenticate(ctx),
  });
  const port = await server.listen('127.0.0.1', 0);
  const authUrl = `http://127.0.0.1:${port}`;
  identity = await createIdentity({
    store: opts.store,
    sealer: new Sealer(opts.masterKey ?? MASTER_KEY),
    authUrl,
    counters: opts.counters ?? new EmbeddedRateCounters({ now: opts.clock.now }),
    logger,
    cache: opts.cache,
    ...opts.identity,
    keyring: { now: opts.clock.now, ...opts.identity?.keyring },
  });
  for (const r of identity.routes) server.add(r);
  server.add(whoamiRoute);
  return { server, identity, authUrl, port, close: () => server.drain(0) };
}

export interface AppFixture {
  app: App;
  secret: string;
  plan: Plan | null;
}

/** An active tenant with one app (enabled, region and dbCode set) and optionally a plan. */
export async function createAppFixture(
  store: ControlPlaneStore,
  opts: {
    tenantState?: 'Active' | 'Pending Activation' | 'Deactivated';
    plan?: 'none' | 'usable' | 'retired';
    licenseRegion?: string | null;
    dbCode?: string | null;
    enabled?: boolean;
    allowedDomains?: string[];
  } = {},
): Promise<AppFixture> {
  const tenant = await store.createTenant({ name: `tenant-${randomUUID().slice(0, 8)}` });
  const state = opts.tenantState ?? 'Active';
  if (state !== 'Pending Activation') await store.setTenantState(tenant.id, state);
  let plan: Plan | null = null;
  if (opts.plan && opts.plan !== 'none') {
    plan = await store.createPlan(planInput({ maxDocumentUnitsPerMonth: 5000, advancedPdfExtraction: true }));
    if (opts.plan === 'retired') plan = await store.retirePlan(plan.id);
  }
  const secret = generateClientSecret();
  const app = await store.createApp({
    tenantId: tenant.id,
    name: 'app',
    licenseRegion: opts.licenseRegion === undefined ? 'eu-west-1' : opts.licenseRegion,
    dbCode: opts.dbCode === undefined ? 'db07' : opts.dbCode,
    clientId: generateClientId(),
    secretHash: await hashSecret(secret),
    allowedDomains: opts.allowedDomains ?? ['allowed.example.com', 'localhost:3000'],
    planId: plan?.id ?? null,
    enabled: opts.enabled ?? true,
  });
  return { app, secret, plan };
}

/** POST to the token endpoint with a form body. */
export async function postToken(
  authUrl: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const res = await fetch(`${authUrl}/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

export function basic(id: string, secret: string): string {
  const enc = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${enc(id)}:${enc(secret)}`).toString('base64')}`;
}

export async function getToken(authUrl: string, f: AppFixture): Promise<string> {
  const r = await postToken(authUrl, { grant_type: 'client_credentials', client_id: f.app.clientId, client_secret: f.secret, scope: 'Service.API' });
  if (r.status !== 200) throw new Error(`token request failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.access_token as string;
}

/** GET the protected route. */
export async function callApi(baseUrl: string, headers: Record<string, string>): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const res = await fetch(`${baseUrl}/api/v1/whoami`, { headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

export function decodePart(jwt: string, i: 0 | 1): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[i], 'base64url').toString('utf8')) as Record<string, unknown>;
}
