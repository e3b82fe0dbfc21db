// Signed webhooks, put together for one node: the callbackUrl check at upload, the job-end
// watcher around the job store, the delivery worker, and what a job's status shows about its
// notification. Nothing here runs for a job that asked for no callback.
import type { Sealer } from '../crypto/sealed.js';
import type { SqlClient } from '../db/sql.js';
import { problem, problems } from '../http/problem.js';
import type { JobRecord, JobStore } from '../jobs/types.js';
import type { Logger } from '../log.js';
import type { OutboundPolicy } from '../outbound/outbound-policy.js';
import { CALLBACK_URL_MAX_LENGTH, CallbackUrlPolicy } from './callback-url.js';
import { WebhookDeliveryStore, type WebhookDelivery } from './delivery-store.js';
import { NotifyingJobStore } from './notifying-store.js';
import { isNotifiable, payloadOf } from './payload.js';
import { WebhookSecretStore } from './secret-store.js';
import { startWebhookSender, type WebhookSender } from './sender.js';
import type { RetryPolicy } from '../outbox/passes.js';

export interface WebhooksOptions {
  db: SqlClient;
  sealer: Sealer;
  outbound: OutboundPolicy;
  logger: Logger;
  /** DOCPARSE_ALLOW_HTTP_CALLBACKS: http:// to loopback addresses (development). */
  allowHttpCallbacks: boolean;
  /** DOCPARSE_WEBHOOK_MAX_AGE_SECONDS: how long a notification is retried. */
  maxAgeSeconds: number;
  /** The jobs' retention: finished deliveries are kept as long as their jobs answer status. */
  retentionSeconds: number;
  nodeId: string;
  retry?: RetryPolicy;
}

/** The `webhook` field of a job's status. */
export interface WebhookStatus {
  callbackUrl: string;
  /** waiting: the job has not ended; pending: being delivered (retries included); delivered; failed: the retry window ended. */
  state: 'waiting' | 'pending' | 'delivered' | 'failed';
  /** The webhook-id the receiver sees. */
  deliveryId: string | null;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
}

export class Webhooks {
  readonly deliveries: WebhookDeliveryStore;
  readonly secrets: WebhookSecretStore;
  private readonly callbacks: CallbackUrlPolicy;
  private sender: WebhookSender | null = null;

  constructor(private readonly o: WebhooksOptions) {
    this.deliveries = new WebhookDeliveryStore(o.db);
    this.secrets = new WebhookSecretStore(o.db, o.sealer);
    this.callbacks = new CallbackUrlPolicy(o.outbound, o.allowHttpCallbacks);
  }

  /** The job store with job ends noticed: every node's writers (intake, worker, cancel) go through it. */
  watch(store: JobStore): JobStore {
    return new NotifyingJobStore(store, { deliveries: this.deliveries, written: () => this.sender?.nudge(), logger: this.o.logger });
  }

  /**
   * The callbackUrl an upload asked for, checked before anything is stored: 400 naming the
   * field when it may not be called, webhook_secret_missing when the app cannot sign.
   */
  async callbackFor(appId: string, url: string | undefined, parameter = 'callbackUrl'): Promise<string | null> {
    if (url === undefined) return null;
    if (url.length > CALLBACK_URL_MAX_LENGTH)
      throw problems.invalidParameter(parameter, `The ${parameter} is longer than ${CALLBACK_URL_MAX_LENGTH} characters.`);
    const refusal = await this.callbacks.refusal(url);
    if (refusal) throw problems.invalidParameter(parameter, `The ${parameter} ${refusal}.`);
    if (!(await this.secrets.has(appId))) {
      throw problem(
        'webhook_secret_missing',
        'This app has no webhook signing secret: create one with POST /manage/v1/apps/{appId}/rotate-webhook-secret (or on the app page of the dashboard), then upload again.',
      );
    }
    return url;
  }

  /** What the job's status says about its notification; undefined for a job without a callback. */
  async describe(job: JobRecord): Promise<WebhookStatus | undefined> {
    if (!job.callbackUrl) return undefined;
    const d = isNotifiable(job) ? await this.deliveries.get(job.tenantId, job.documentId, job.generation) : null;
    return describeDelivery(job.callbackUrl, d);
  }

  /** Sends the notification of a finished job again (webhook_not_replayable for one without a callback or not finished). */
  async replay(job: JobRecord): Promise<WebhookStatus> {
    if (!job.callbackUrl) throw problem('webhook_not_replayable', 'This job was uploaded without a callbackUrl: there is no webhook to replay.');
    if (!isNotifiable(job)) throw problem('webhook_not_replayable', 'This job has not finished yet: its webhook is sent when it does.');
    const d = await this.deliveries.replay(job as JobRecord & { callbackUrl: string }, payloadOf(job));
    this.sender?.nudge();
    return describeDelivery(job.callbackUrl, d);
  }

  /** Starts this node's delivery worker (every node may run one). */
  startSender(): void {
    this.sender ??= startWebhookSender({
      deliveries: this.deliveries,
      secrets: this.secrets,
      outbound: this.o.outbound,
      logger: this.o.logger,
      maxAgeSeconds: this.o.maxAgeSeconds,
      keepSeconds: Math.max(this.o.retentionSeconds, this.o.maxAgeSeconds),
      senderId: this.o.nodeId,
      retry: this.o.retry,
    });
  }

  async stop(): Promise<void> {
    await this.sender?.stop();
  }
}

function describeDelivery(callbackUrl: string, d: WebhookDelivery | null): WebhookStatus {
  const state = !d ? 'waiting' : d.deliveredAt ? 'delivered' : d.gaveUpAt ? 'failed' : 'pending';
  return {
    callbackUrl,
    state,
    deliveryId: d?.id ?? null,
    attempts: d?.attempts ?? 0,
    lastStatusCode: d?.lastStatusCode ?? null,
    lastError: d?.lastError ?? null,
    lastAttemptAt: d?.lastAttemptAt ?? null,
    nextAttemptAt: state === 'pending' ? d!.nextAttemptAt : null,
    deliveredAt: d?.deliveredAt ?? null,
  };
}
