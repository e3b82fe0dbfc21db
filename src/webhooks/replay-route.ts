// POST /api/v1/documents/{documentId}/webhook/replay: sends a finished job's notification again
// (same webhook-id, same body, a new retry window), e.g. after the receiver was down for longer
// than the retry window.
import type { RouteDef } from '../http/route.js';
import { problems } from '../http/problem.js';
import { JobState, type JobStore } from '../jobs/types.js';
import type { Webhooks } from './webhooks.js';
import { WebhookStatusSchema } from './schema.js';
import { Type } from '@sinclair/typebox';

export function webhookReplayRoute(d: { jobs: JobStore; webhooks: Webhooks }): RouteDef {
  return {
    method: 'POST',
    path: '/api/v1/documents/:documentId/webhook/replay',
    operationId: 'replayDocumentWebhook',
    summary: "Send a finished job's webhook again",
    description:
      'The same body and webhook-id as the first delivery, signed with the app’s current secret, retried again for DOCPARSE_WEBHOOK_MAX_AGE_SECONDS. Answers with the delivery as the status shows it.',
    tags: ['documents'],
    auth: 'bearer',
    params: Type.Object({ documentId: Type.String({ minLength: 1, maxLength: 200 }) }),
    responses: { 202: { description: 'Queued for delivery.', schema: WebhookStatusSchema } },
    errors: ['document_not_found', 'webhook_not_replayable'],
    handler: async (ctx) => {
      const { documentId } = ctx.params;
      // Upload sessions' records ("upload-session/…", state 0) are no documents.
      const job = documentId.includes('/') ? null : await d.jobs.get(ctx.principal!.tenantId, documentId);
      if (!job || job.statusInt === JobState.NotQueued) throw problems.documentNotFound(documentId);
      return { status: 202, json: await d.webhooks.replay(job) };
    },
  };
}
