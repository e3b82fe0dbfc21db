// The queue's depth, lane by lane, as node-state and /metrics read it: asked of the queue at
// most once a second (in Redis mode that is two round trips), never per request. A balancer
// polling node-state many times a second and a Prometheus scrape share the same answer.
import type { JobQueue, LaneDepths, QueueDepth } from './types.js';
import { sumDepths } from './support.js';

export interface DepthReading {
  /** The lanes' depths, or null while the queue does not answer. */
  lanes: LaneDepths | null;
  total: QueueDepth | null;
}

export class QueueDepthCache {
  private reading: DepthReading = { lanes: null, total: null };
  private readAt = -Infinity;
  private inFlight: Promise<DepthReading> | null = null;

  constructor(
    private readonly queue: Pick<JobQueue, 'depthByLane'>,
    private readonly maxAgeMs = 1000,
  ) {}

  /** The depth at most maxAgeMs old; concurrent callers share one read of the queue. */
  async get(): Promise<DepthReading> {
    if (performance.now() - this.readAt <= this.maxAgeMs) return this.reading;
    this.inFlight ??= this.queue
      .depthByLane()
      .then(
        (lanes): DepthReading => ({ lanes, total: sumDepths(lanes) }),
        (): DepthReading => ({ lanes: null, total: null }),
      )
      .then((r) => {
        this.reading = r;
        this.readAt = performance.now();
        this.inFlight = null;
        return r;
      });
    return this.inFlight;
  }
}
