// The `webhook` field of a job's status, for validation-free documentation (OpenAPI).
import { Type } from '@sinclair/typebox';

const Nullable = <T extends ReturnType<typeof Type.String> | ReturnType<typeof Type.Integer>>(t: T) => Type.Union([t, Type.Null()]);

export const WebhookStatusSchema = Type.Object(
  {
    callbackUrl: Type.String(),
    state: Type.Union([Type.Literal('waiting'), Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')], {
      description:
        'waiting: the job has not ended; pending: being delivered (retries included); delivered: a 2xx answer; failed: no 2xx within DOCPARSE_WEBHOOK_MAX_AGE_SECONDS (replayable).',
    }),
    deliveryId: Nullable(Type.String({ description: 'The webhook-id header the receiver sees (the same on every attempt and replay).' })),
    attempts: Type.Integer(),
    lastStatusCode: Nullable(Type.Integer({ description: "The receiver's last answer; null when none came (refused address, timeout, connection error)." })),
    lastError: Nullable(Type.String()),
    lastAttemptAt: Nullable(Type.String({ format: 'date-time' })),
    nextAttemptAt: Nullable(Type.String({ format: 'date-time' })),
    deliveredAt: Nullable(Type.String({ format: 'date-time' })),
  },
  { description: 'Only for a job uploaded with a callbackUrl (docs/webhooks.md).' },
);
