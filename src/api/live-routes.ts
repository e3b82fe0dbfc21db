// The documents API with live status and cancel: the plain routes (documents.ts) extended by
// the long poll and `Prefer: wait`, the event stream and the two cancel routes. One call for
// the node's wiring.
import type { Logger } from 'pino';
import type { RouteDef } from '../http/route.js';
import type { JobEvents } from '../jobs/events.js';
import type { ControlPlaneStore } from '../tenancy/types.js';
import type { QuotaKeeper } from '../tenancy/quota/keeper.js';
import { JobEnding } from '../pipeline/job-ending.js';
import { JobUsage } from '../pipeline/job-usage.js';
import { documentRoutes } from './documents.js';
import type { Intake } from './intake.js';
import { LiveStatus } from './live-status.js';
import { cancelRoutes } from './cancel.js';

export function liveDocumentRoutes(o: { intake: Intake; events: JobEvents; controlPlane: ControlPlaneStore; quota: QuotaKeeper; logger: Logger }): {
  routes: RouteDef[];
  live: LiveStatus;
} {
  const { intake, events, logger } = o;
  const jobs = intake.d.jobs;
  const usage = new JobUsage({ controlPlane: o.controlPlane, quota: o.quota, logger });
  const ending = new JobEnding({ store: jobs, usage, logger, events });
  const live = new LiveStatus({ jobs, events, blobs: intake.d.blobs, logger });
  const routes = [
    ...live.routes(documentRoutes(intake.d, intake)),
    ...cancelRoutes({ jobs, events, ending, logger, deleteBlobs: (job) => intake.deleteBlobs(job) }),
  ];
  return { routes, live };
}
