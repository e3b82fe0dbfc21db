// The background sender: every few seconds (or at once when nudged) it lets its hooks queue
// what is due (the e-mails of new invitations), claims due outbox rows under a lease and hands them to the SMTP server,
// stamping each sent only once the server accepted it; a refusal or an unreachable server is
// retried with exponential back-off, without end. Every node may run one: claims never overlap.
// Without an SMTP URL nothing is sent and the outbox is what `docparse admin mail list` shows.
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import type nodemailer from 'nodemailer';
import type { Logger } from '../log.js';
import type { SqlClient } from '../db/sql.js';
import { OutboxStore, type OutboxMail } from './outbox-store.js';
import { redactSmtpUrl, withoutSmtpSecret, type MailSettings } from './settings.js';
import { renderMail } from './templates.js';
import { retryDelayMs, startPassLoop, type RetryPolicy } from '../outbox/passes.js';

export const DEFAULT_RETRY: RetryPolicy = { baseMs: 5_000, maxMs: 15 * 60_000 };

/** What the outbox's users do around the sender's passes (tenant e-mails: src/tenancy/tenant-mail.ts). */
export interface OutboxHooks {
  /** Before each pass: queue the e-mails that are due but not in the outbox yet. */
  beforePass?(db: SqlClient): Promise<unknown>;
  /** After the SMTP server accepted an e-mail. */
  delivered?(db: SqlClient, mail: OutboxMail): Promise<void>;
}

export interface OutboxSenderDeps {
  db: SqlClient;
  hooks?: OutboxHooks;
  settings: MailSettings;
  logger: Logger;
  /** Names this sender in leases (e.g. the node id); a random suffix keeps two in one process apart. */
  senderId?: string;
  /** How often the outbox is looked at (ms). */
  pollMs?: number;
  retry?: RetryPolicy;
  /** How long a claimed row is this sender's: longer than any SMTP conversation (s). */
  leaseSeconds?: number;
  /** Rows claimed at a time. */
  batchSize?: number;
}

export interface OutboxSender {
  /** Looks at the outbox now (e.g. right after an activation or an invitation). */
  nudge(): void;
  /** Finishes the message being sent, then stops. */
  stop(): Promise<void>;
}

/** An SMTP failure in one line, with the server's answer when there was one. */
function describeFailure(err: unknown, smtpUrl: string): string {
  const e = err as { message?: string; code?: string; responseCode?: number };
  const parts = [e.message ?? String(err)];
  if (e.code && !parts[0].includes(e.code)) parts.push(`(${e.code})`);
  return withoutSmtpSecret(parts.join(' '), smtpUrl);
}

type Transport = ReturnType<typeof nodemailer.createTransport>;

function createTransport(smtpUrl: string): Transport {
  // smtp:// upgrades with STARTTLS whenever the server offers it (certificates are verified);
  // smtps:// is TLS from the first byte. The timeouts keep a conversation well inside a lease.
  // Loaded when a node first sends mail (most nodes have no SMTP server configured).
  const { createTransport } = createRequire(import.meta.url)('nodemailer') as typeof nodemailer;
  return createTransport({ url: smtpUrl, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 });
}

export function startOutboxSender(deps: OutboxSenderDeps): OutboxSender {
  const outbox = new OutboxStore(deps.db);
  const log = deps.logger.child({ component: 'mail' });
  const owner = `${deps.senderId ?? 'node'}:${randomUUID().slice(0, 8)}`;
  const pollMs = deps.pollMs ?? 5_000;
  const retry = deps.retry ?? DEFAULT_RETRY;
  const leaseSeconds = deps.leaseSeconds ?? 300;
  const batchSize = deps.batchSize ?? 10;
  const { smtpUrl } = deps.settings;
  const transport = smtpUrl ? createTransport(smtpUrl) : null;
  const messageIdHost = (() => {
    try {
      return new URL(deps.settings.dashboardUrl).hostname || 'docparse';
    } catch {
      return 'docparse';
    }
  })();

  if (smtpUrl) log.info({ smtp: redactSmtpUrl(smtpUrl) }, 'sending e-mail through SMTP');
  else log.info('no DOCPARSE_SMTP_URL: e-mails stay in the outbox (docparse admin mail list)');

  async function deliver(mail: OutboxMail, t: Transport): Promise<void> {
    try {
      const rendered = renderMail(mail.message, { dashboardUrl: deps.settings.dashboardUrl });
      const info = await t.sendMail({
        from: deps.settings.from,
        to: mail.recipients,
        subject: rendered.subject,
        text: rendered.text,
        html: rendered.html,
        // The same id on every attempt: a receiver can drop a copy sent again after a crash.
        messageId: `<${mail.id}@${messageIdHost}>`,
      });
      if (await outbox.markSent(mail.id, owner, info.messageId ?? null)) {
        await deps.hooks?.delivered?.(deps.db, mail);
        log.info({ mailId: mail.id, template: mail.message.template, recipients: mail.recipients.length, attempts: mail.attempts }, 'e-mail sent');
      } else {
        log.warn({ mailId: mail.id }, 'e-mail sent after its lease ran out; another sender may send it again');
      }
    } catch (err) {
      const reason = describeFailure(err, smtpUrl!);
      const retryInMs = retryDelayMs(mail.attempts, retry);
      await outbox.markFailed(mail.id, owner, reason, retryInMs);
      log.warn({ mailId: mail.id, attempts: mail.attempts, retryInMs, reason }, 'e-mail not accepted; will retry');
    }
  }

  /** One pass: let the hooks queue what is due (invitation e-mails), then send what is due, batch after batch. */
  async function pass(stopped: () => boolean): Promise<void> {
    await deps.hooks?.beforePass?.(deps.db);
    if (!transport) return;
    for (;;) {
      if (stopped()) return;
      const due = await outbox.claimDue(owner, { limit: batchSize, leaseSeconds });
      for (const [i, mail] of due.entries()) {
        if (stopped()) {
          // Not tried: back to the outbox now, not when the lease ends (a restarted node sends them at once).
          await outbox.release(
            due.slice(i).map((m) => m.id),
            owner,
          );
          return;
        }
        await deliver(mail, transport);
      }
      if (due.length < batchSize) return;
    }
  }

  // The control plane may be away (PostgreSQL restarting): the loop says so once and keeps trying.
  const loop = startPassLoop({ pass, nextWakeMs: () => pollMs, logger: log, failure: 'mail outbox pass failed; retrying' });
  return {
    nudge: () => loop.nudge(),
    async stop() {
      await loop.stop();
      transport?.close();
    },
  };
}
