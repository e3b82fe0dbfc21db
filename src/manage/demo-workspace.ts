// The demo workspace: one active tenant, one all-features plan and one enabled app, so a
// fresh `npm start` can issue tokens and parse documents without any admin step.
import { generateClientId, generateClientSecret, hashSecret } from '../identity/secrets.js';
import type { ControlPlaneStore } from '../tenancy/types.js';

export const DEMO_TENANT_ID = '00000000-0000-4000-8000-0000000de300';
export const DEMO_PLAN_ID = '00000000-0000-4000-8000-0000000de301';
export const DEMO_APP_ID = '00000000-0000-4000-8000-0000000de302';
export const DEMO_ALLOWED_DOMAINS: readonly string[] = ['localhost:8080', '127.0.0.1:8080'];

const GiB = 1024 ** 3;

export interface SeedDemoOptions {
  /** License region stamped on the demo app (normally the node's own region). */
  region: string;
  /** DOCPARSE_DEMO_CLIENT_ID; generated when absent. */
  clientId?: string;
  /** DOCPARSE_DEMO_CLIENT_SECRET; generated when absent. */
  clientSecret?: string;
  allowedDomains?: string[];
}

export interface SeedDemoResult {
  /** false when the demo workspace already existed (nothing was changed). */
  created: boolean;
  clientId: string;
  /** The plaintext secret, only when created now (show it once); null otherwise. */
  clientSecret: string | null;
  tenantId: string;
  appId: string;
}

/**
 * Creates the demo workspace once. Later calls (every boot) find the demo tenant and app and
 * return created:false. A seed interrupted half-way is completed on the next call.
 */
export async function seedDemoWorkspace(store: ControlPlaneStore, opts: SeedDemoOptions): Promise<SeedDemoResult> {
  const existingTenant = await store.getTenant(DEMO_TENANT_ID);
  const existingApp = existingTenant ? await store.getApp(DEMO_APP_ID) : null;
  if (existingTenant && existingApp) {
    return { created: false, clientId: existingApp.clientId, clientSecret: null, tenantId: DEMO_TENANT_ID, appId: DEMO_APP_ID };
  }
  if (!opts.region?.trim()) throw new Error('demo workspace needs a license region');

  if (!existingTenant) {
    await tolerateRace(
      () => store.createTenant({ id: DEMO_TENANT_ID, name: 'Demo workspace', contactEmail: null }),
      async () => (await store.getTenant(DEMO_TENANT_ID)) !== null,
    );
  }
  const tenant = await store.getTenant(DEMO_TENANT_ID);
  if (tenant && tenant.state === 'Pending Activation') await store.setTenantState(DEMO_TENANT_ID, 'Active');

  if (!(await store.getPlan(DEMO_PLAN_ID))) {
    await tolerateRace(
      () =>
        store.createPlan({
          id: DEMO_PLAN_ID,
          name: 'demo',
          maxDocumentUnitsPerMonth: 1_000_000,
          advancedPdfExtraction: true,
          ocrPdfExtraction: true,
          maxFileSizeBytes: 2 * GiB,
          maxConcurrentJobs: 64,
          maxBytesPerSecond: 1 * GiB,
        }),
      async () => (await store.getPlan(DEMO_PLAN_ID)) !== null,
    );
  }

  const clientId = opts.clientId?.trim() || generateClientId();
  const clientSecret = opts.clientSecret || generateClientSecret();
  const createdApp = await tolerateRace(
    async () =>
      store.createApp({
        id: DEMO_APP_ID,
        tenantId: DEMO_TENANT_ID,
        name: 'demo',
        licenseRegion: opts.region.trim(),
        dbCode: 'demo',
        clientId,
        secretHash: await hashSecret(clientSecret),
        allowedDomains: opts.allowedDomains ?? [...DEMO_ALLOWED_DOMAINS],
        planId: DEMO_PLAN_ID,
        enabled: true,
      }),
    async () => (await store.getApp(DEMO_APP_ID)) !== null,
  );
  if (!createdApp) {
    // Another node seeded the app concurrently: its secret is not ours to show.
    const other = await store.getApp(DEMO_APP_ID);
    return { created: false, clientId: other?.clientId ?? clientId, clientSecret: null, tenantId: DEMO_TENANT_ID, appId: DEMO_APP_ID };
  }
  return { created: true, clientId, clientSecret, tenantId: DEMO_TENANT_ID, appId: DEMO_APP_ID };
}

/**
 * Runs create() and returns true; if it fails but exists() now holds, another node won the
 * race: returns false. Otherwise rethrows.
 */
async function tolerateRace(create: () => Promise<unknown>, exists: () => Promise<boolean>): Promise<boolean> {
  try {
    await create();
    return true;
  } catch (err) {
    if (!(await exists())) throw err;
    return false;
  }
}
