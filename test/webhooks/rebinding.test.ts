// The address policy holds on every delivery attempt, not only at upload: a callback host that
// resolved to an allowed address when the job was accepted and resolves to a refused one when
// the notification is sent (DNS rebinding) gets nothing — the attempt is recorded as refused
// and retried — and is delivered once the name points back at the allowed receiver. Real
// control plane (PGlite, migrations), real outbox and sender, a real receiver; only the DNS
// answers are scripted (the resolver is the OutboundPolicy's injection point).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sealer } from '../../src/crypto/sealed.js';
import { JobState, type JobRecord } from '../../src/jobs/types.js';
import { OutboundPolicy } from '../../src/outbound/outbound-policy.js';
import { openControlPlaneStore } from '../../src/tenancy/sql-store.js';
import type { SqlControlPlaneStore } from '../../src/tenancy/sql-store.js';
import { CallbackUrlPolicy } from '../../src/webhooks/callback-url.js';
import { WebhookDeliveryStore } from '../../src/webhooks/delivery-store.js';
import { payloadOf } from '../../src/webhooks/payload.js';
import { WebhookSecretStore } from '../../src/webhooks/secret-store.js';
import { startWebhookSender, type WebhookSender } from '../../src/webhooks/sender.js';
import { waitFor } from '../helpers/node.js';
import { startReceiver, type Receiver } from './receiver.js';

describe('webhook delivery under DNS rebinding', () => {
  let dir: string;
  let store: SqlControlPlaneStore;
  let receiver: Receiver;
  let sender: WebhookSender | null = null;
  // What the callback's host name resolves to right now.
  let answer = '127.0.0.2';
  const outbound = new OutboundPolicy({ allow: ['127.0.0.2/32'], resolve: async () => [{ address: answer, family: 4 }] });

  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dp-rebind-'));
    store = await openControlPlaneStore({ dataDir: dir });
    receiver = await startReceiver('127.0.0.2');
  });
  afterAll(async () => {
    await sender?.stop();
    await receiver?.close();
    await store?.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('refuses the attempt made while the name points at loopback, and delivers once it points back', async () => {
    const tenant = await store.createTenant({ name: 'rebind' });
    const app = await store.createApp({
      tenantId: tenant.id,
      name: 'a',
      licenseRegion: 'local',
      dbCode: 'db',
      clientId: `c-${randomUUID()}`,
      secretHash: 'x',
      planId: null,
    });
    const secrets = new WebhookSecretStore(store.db, new Sealer(randomBytes(32).toString('hex')));
    const { secret } = await secrets.rotate(app.id);
    const port = new URL(receiver.url).port;
    const callbackUrl = `http://hooks.rebind.test:${port}/hook`;

    // At upload the name resolves to the allowed receiver: accepted.
    expect(await new CallbackUrlPolicy(outbound, true).refusal(callbackUrl)).toBeNull();
    const now = new Date().toISOString();
    const job = {
      tenantId: tenant.id,
      appId: app.id,
      documentId: 'rebound',
      generation: randomUUID(),
      statusInt: JobState.Completed,
      completedAt: now,
      documentUnits: 1,
      error: null,
      callbackUrl,
    } as unknown as JobRecord & { callbackUrl: string };
    const deliveries = new WebhookDeliveryStore(store.db);
    await deliveries.enqueue(job, payloadOf(job));

    // By the time it is sent, the name points at 127.0.0.1.
    answer = '127.0.0.1';
    sender = startWebhookSender({
      deliveries,
      secrets,
      outbound,
      logger: pino({ level: 'silent' }),
      maxAgeSeconds: 3600,
      keepSeconds: 3600,
      pollMs: 100,
      retry: { baseMs: 300, maxMs: 300 },
    });
    const refused = await waitFor(async () => {
      const d = await deliveries.get(tenant.id, 'rebound', job.generation);
      return d && d.attempts >= 1 && d.lastError ? d : null;
    }, 'the refused attempt');
    expect(refused.lastError).toMatch(/127\.0\.0\.1.*loopback/);
    expect(refused.lastStatusCode).toBeNull();
    expect(refused.deliveredAt).toBeNull();
    expect(receiver.received).toEqual([]);

    answer = '127.0.0.2';
    const delivered = await waitFor(async () => {
      const d = await deliveries.get(tenant.id, 'rebound', job.generation);
      return d?.deliveredAt ? d : null;
    }, 'the delivery');
    expect(delivered.attempts).toBeGreaterThanOrEqual(2);
    expect(receiver.received).toHaveLength(1);
    const r = receiver.received[0];
    expect(new Webhook(secret).verify(r.body, r.headers)).toMatchObject({ documentId: 'rebound', type: 'document.completed' });
  });

  it('gives up when the retry window ends without a 2xx, and keeps what the receiver last answered', async () => {
    await sender?.stop();
    const tenant = await store.createTenant({ name: 'window' });
    const app = await store.createApp({
      tenantId: tenant.id,
      name: 'a',
      licenseRegion: 'local',
      dbCode: 'db',
      clientId: `c-${randomUUID()}`,
      secretHash: 'x',
      planId: null,
    });
    const secrets = new WebhookSecretStore(store.db, new Sealer(randomBytes(32).toString('hex')));
    await secrets.rotate(app.id);
    const job = {
      tenantId: tenant.id,
      appId: app.id,
      documentId: 'never-taken',
      generation: randomUUID(),
      statusInt: JobState.Failed,
      completedAt: new Date().toISOString(),
      documentUnits: null,
      error: { code: 'extraction_failed', message: 'x', stage: 'extract' },
      callbackUrl: receiver.url,
    } as unknown as JobRecord & { callbackUrl: string };
    receiver.fail('never-taken', 503, 1000);
    const deliveries = new WebhookDeliveryStore(store.db);
    await deliveries.enqueue(job, payloadOf(job));
    answer = '127.0.0.2';
    sender = startWebhookSender({
      deliveries,
      secrets,
      outbound,
      logger: pino({ level: 'silent' }),
      maxAgeSeconds: 1,
      keepSeconds: 3600,
      pollMs: 100,
      retry: { baseMs: 200, maxMs: 200 },
    });
    const gaveUp = await waitFor(async () => {
      const d = await deliveries.get(tenant.id, 'never-taken', job.generation);
      return d?.gaveUpAt ? d : null;
    }, 'the delivery to be given up');
    expect(gaveUp.deliveredAt).toBeNull();
    expect(gaveUp.lastStatusCode).toBe(503);
    expect(gaveUp.lastError).toMatch(/503/);
    const tries = receiver.for('never-taken').length;
    expect(tries).toBe(gaveUp.attempts);
    expect(tries).toBeGreaterThanOrEqual(2);
    // No further attempt once given up.
    await new Promise((r) => setTimeout(r, 600));
    expect(receiver.for('never-taken')).toHaveLength(tries);
    expect(JSON.parse(receiver.for('never-taken')[0].body)).toMatchObject({ type: 'document.failed', error: { code: 'extraction_failed' } });
  });
});
