// The delivery worker: every few seconds (at once when nudged, i.e. when this node ended a job
// with a callback) it claims due notifications under a lease and POSTs each, signed with its
// app's current secret, through the outbound policy's agents (the address is checked again on
// every connection; redirects are not followed). A 2xx answer delivers it; anything else is
// retried with exponential back-off until DOCPARSE_WEBHOOK_MAX_AGE_SECONDS after the job ended,
// then given up. Every node runs one; claims never overlap, so one attempt goes out at a time.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { Logger } from '../log.js';
import type { OutboundPolicy } from '../outbound/outbound-policy.js';
import type { WebhookDeliveryStore, WebhookDelivery } from './delivery-store.js';
import type { WebhookSecretStore } from './secret-store.js';
import { signWebhook } from './signature.js';
import { retryDelayMs, startPassLoop, type RetryPolicy } from '../outbox/passes.js';

export const DEFAULT_WEBHOOK_RETRY: RetryPolicy = { baseMs: 5_000, maxMs: 30 * 60_000 };

/** How long one attempt may take, connection to answer (ms); well inside a lease. */
const ATTEMPT_TIMEOUT_MS = 10_000;
const LEASE_SECONDS = 60;
const BATCH = 10;
/** How much of a receiver's answer is read (and dropped): none of it is kept. */
const MAX_ANSWER_BYTES = 64 * 1024;

export interface WebhookSenderDeps {
  deliveries: WebhookDeliveryStore;
  secrets: WebhookSecretStore;
  outbound: OutboundPolicy;
  logger: Logger;
  /** Retries stop this long after the job ended (or was replayed). */
  maxAgeSeconds: number;
  /** Finished deliveries are forgotten this long after their job ended (its retention, at least the retry window). */
  keepSeconds: number;
  senderId?: string;
  pollMs?: number;
  retry?: RetryPolicy;
}

export interface WebhookSender {
  nudge(): void;
  stop(): Promise<void>;
}

interface Outcome {
  statusCode: number | null;
  error: string | null;
}

export function startWebhookSender(deps: WebhookSenderDeps): WebhookSender {
  const log = deps.logger.child({ component: 'webhooks' });
  const owner = `${deps.senderId ?? 'node'}:${randomUUID().slice(0, 8)}`;
  // New notifications are sent at once (the node that wrote one nudges its sender) and a failed
  // attempt's retry is woken for by the node that made it; the poll only picks up what a node
  // that stopped or died left behind, and other nodes' replays: it can be slow (a claim on an
  // empty outbox costs ~1.3 ms on PostgreSQL, ~3 ms of the event loop on PGlite).
  const pollMs = deps.pollMs ?? 10_000;
  const retry = deps.retry ?? DEFAULT_WEBHOOK_RETRY;
  // A new connection per attempt (no keep-alive): each one passes the address policy afresh.
  const agents = deps.outbound.agents({ keepAlive: false });

  /** When retries this sender scheduled fall due (ms since the epoch). */
  let wakes: number[] = [];

  function post(d: WebhookDelivery, secret: string): Promise<Outcome> {
    const body = JSON.stringify(d.payload);
    const timestamp = Math.floor(Date.now() / 1000);
    const url = new URL(d.callbackUrl);
    const secure = url.protocol === 'https:';
    return new Promise((resolve) => {
      const req = (secure ? https : http).request(
        url,
        {
          method: 'POST',
          agent: secure ? agents.https : agents.http,
          timeout: ATTEMPT_TIMEOUT_MS,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            'user-agent': 'docparse-webhooks/1',
            'webhook-id': d.id,
            'webhook-timestamp': String(timestamp),
            'webhook-signature': signWebhook(secret, d.id, timestamp, body),
          },
        },
        (res) => {
          let read = 0;
          res.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (read > MAX_ANSWER_BYTES) res.destroy();
          });
          const done = () => {
            const code = res.statusCode ?? 0;
            resolve({ statusCode: code, error: code >= 200 && code < 300 ? null : `the receiver answered ${code}` });
          };
          res.on('end', done);
          res.on('close', done);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer within ${ATTEMPT_TIMEOUT_MS / 1000} s`)));
      req.on('error', (err) => resolve({ statusCode: null, error: err.message }));
      req.end(body);
    });
  }

  async function attempt(d: WebhookDelivery): Promise<void> {
    const secret = await deps.secrets.get(d.appId);
    const outcome: Outcome = secret ? await post(d, secret.secret) : { statusCode: null, error: 'the app has no webhook secret (it was deleted)' };
    const fields = { deliveryId: d.id, documentId: d.documentId, tenantId: d.tenantId, attempts: d.attempts, statusCode: outcome.statusCode };
    if (outcome.error === null) {
      await deps.deliveries.markDelivered(d.id, owner, outcome.statusCode!);
      log.info(fields, 'webhook delivered');
      return;
    }
    const retryInMs = retryDelayMs(d.attempts, retry);
    const windowEnds = Date.parse(d.windowStartedAt) + deps.maxAgeSeconds * 1000;
    const giveUp = !secret || Date.now() + retryInMs > windowEnds;
    await deps.deliveries.markFailed(d.id, owner, { statusCode: outcome.statusCode, error: outcome.error }, giveUp ? null : retryInMs);
    if (giveUp) log.warn({ ...fields, error: outcome.error }, 'webhook not delivered; retry window over, given up');
    else {
      // A little after the row's next_attempt_at (set by the database's clock a moment later).
      wakes.push(Date.now() + retryInMs + 250);
      log.info({ ...fields, error: outcome.error, retryInMs }, 'webhook not delivered; will retry');
    }
  }

  let sweptAt = 0;
  async function pass(stopped: () => boolean): Promise<void> {
    if (Date.now() - sweptAt > 3_600_000) {
      sweptAt = Date.now();
      const gone = await deps.deliveries.deleteOlderThan(deps.keepSeconds);
      if (gone) log.debug({ deliveries: gone }, 'old webhook deliveries forgotten');
    }
    for (;;) {
      if (stopped()) return;
      const due = await deps.deliveries.claimDue(owner, { limit: BATCH, leaseSeconds: LEASE_SECONDS });
      await Promise.all(due.map((d) => attempt(d).catch((err: Error) => log.warn({ err: err.message, deliveryId: d.id }, 'webhook attempt not recorded'))));
      if (due.length < BATCH) return;
    }
  }

  /** Until the earliest retry this sender owes, or the poll, whichever comes first. */
  function nextWakeMs(): number {
    const now = Date.now();
    wakes = wakes.filter((t) => t > now);
    return Math.min(pollMs, ...wakes.map((t) => t - now));
  }

  // The control plane may be away: the loop says so once and keeps trying.
  const loop = startPassLoop({ pass, nextWakeMs, logger: log, failure: 'webhook pass failed; retrying' });
  return {
    nudge: () => loop.nudge(),
    async stop() {
      await loop.stop();
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}
