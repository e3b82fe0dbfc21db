// GET /metrics: the node's metrics in Prometheus text format, for operators only (an operator
// key as a Bearer token, checked by the caller's `authorize`): route names, queue depths and
// job counts say how the service is used, which is nobody else's business.
import { Type } from '@sinclair/typebox';
import type { RequestContext, RouteDef } from '../http/route.js';
import type { NodeMetrics } from './node-metrics.js';

export function metricsRoute(metrics: NodeMetrics, authorize: (ctx: RequestContext) => Promise<void>): RouteDef {
  return {
    method: 'GET',
    path: '/metrics',
    operationId: 'metrics',
    summary: 'The node’s metrics in Prometheus text format (operator key)',
    description:
      'Requests and latency by route and status, jobs by state and family, Document Units charged, engine time, quota refusals, queue depth per lane, pool utilisation, parsing-process restarts. Send an operator API key as `Authorization: Bearer dp_op_…`. See docs/operations.md#metrics.',
    tags: ['metrics'],
    // Not an app token: the handler checks an operator key, so it is described with the management API.
    auth: 'manage',
    api: 'manage',
    query: Type.Object({}, { additionalProperties: false }),
    responses: { 200: { description: 'Prometheus text exposition format 0.0.4.', contentType: 'text/plain', schema: Type.String() } },
    handler: async (ctx) => {
      await authorize(ctx);
      const { text, contentType } = await metrics.scrape();
      return { status: 200, text, contentType, headers: { 'Cache-Control': 'no-store' } };
    },
  };
}
