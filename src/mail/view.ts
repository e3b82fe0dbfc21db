// An outbox row as a person reads it — status, recipients, the rendered subject and text —
// shared by the CLI (`docparse admin mail list|show`) and the management API's mail routes.
// Why a delivery failed is the SMTP conversation's own words, which name the relay (its host,
// address and port): operators read them; a tenant's owners read that it is being retried.
import type { OutboxMail } from './outbox-store.js';
import type { MailSettings } from './settings.js';
import { renderMail } from './templates.js';

export type MailView = ReturnType<typeof mailView>;

/** Who reads the e-mail: an operator sees everything; a tenant's owner nothing of the relay. */
export type MailReader = 'operator' | 'owner';

/** What a tenant's owner reads for a failed delivery attempt. */
export const DELIVERY_RETRIED = 'The mail server has not taken this e-mail yet; it is tried again.';

/** An outbox row with what it says, rendered as it is (or would be) sent. */
export function mailView(m: OutboxMail, settings: MailSettings, reader: MailReader) {
  let rendered: ReturnType<typeof renderMail> | null = null;
  let problem: string | null = null;
  try {
    rendered = renderMail(m.message, { dashboardUrl: settings.dashboardUrl });
  } catch (err) {
    problem = (err as Error).message;
  }
  return {
    id: m.id,
    status: (m.sentAt ? 'sent' : m.withdrawnAt ? 'withdrawn' : settings.smtpUrl ? 'pending' : 'kept') as 'sent' | 'withdrawn' | 'pending' | 'kept',
    template: m.message.template,
    tenantId: m.tenantId,
    from: settings.from,
    to: m.recipients,
    subject: rendered?.subject ?? null,
    text: rendered?.text ?? null,
    html: rendered?.html ?? null,
    ...(problem ? { problem } : {}),
    createdAt: m.createdAt,
    attempts: m.attempts,
    nextAttemptAt: m.sentAt || m.withdrawnAt ? null : m.nextAttemptAt,
    lastError: m.lastError === null || reader === 'operator' ? m.lastError : DELIVERY_RETRIED,
    sentAt: m.sentAt,
    messageId: m.messageId,
    withdrawnAt: m.withdrawnAt,
  };
}
