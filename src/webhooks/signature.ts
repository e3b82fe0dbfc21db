// Standard Webhooks signatures (https://www.standardwebhooks.com): the secret is `whsec_`
// followed by base64 key bytes; each message is signed as HMAC-SHA256 over
// `${webhook-id}.${webhook-timestamp}.${body}` and sent as `v1,<base64>` in webhook-signature,
// so the reference `standardwebhooks` verifiers accept it unmodified.
import { createHmac, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

/** A new signing secret: 32 random bytes. */
export function generateWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** The webhook-signature header value for one message. */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}
