// Requests and their latency by route pattern, method and status, counted in place: one Map
// lookup and a few increments of a Float64Array per request, nothing allocated once a
// (route, status) pair has been seen. The tallies become a Prometheus histogram only when
// /metrics is scraped (toHistogram).
import type { RouteDef } from '../http/route.js';

/** Upper bounds of the latency buckets (seconds): most answers take a millisecond or two. */
export const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;
const N = LATENCY_BUCKETS.length;
/** Slots of one tally: a count per bucket (not cumulative), then the total count, then the sum of seconds. */
const COUNT = N;
const SUM = N + 1;

/** What the front reports of a request the router found no route for (404, 405, a refused frame …). */
const UNMATCHED = { method: 'other', route: 'unmatched' } as const;

interface RouteTally {
  method: string;
  route: string;
  byStatus: Map<number, Float64Array>;
}

export interface HistogramRow {
  metricName: string;
  labels: Record<string, string | number>;
  value: number;
}

export class RequestTallies {
  private readonly byRoute = new Map<RouteDef, RouteTally>();
  private readonly unmatched: RouteTally = { ...UNMATCHED, byStatus: new Map() };

  /** One answered (or abandoned) request: its route as declared, never the raw path. */
  readonly observe = (route: RouteDef | undefined, status: number, seconds: number): void => {
    let tally = route ? this.byRoute.get(route) : this.unmatched;
    if (!tally) this.byRoute.set(route!, (tally = { method: route!.method, route: route!.path, byStatus: new Map() }));
    let slots = tally.byStatus.get(status);
    if (!slots) tally.byStatus.set(status, (slots = new Float64Array(N + 2)));
    let i = 0;
    while (i < N && seconds > LATENCY_BUCKETS[i]) i++;
    if (i < N) slots[i]++;
    slots[COUNT]++;
    slots[SUM] += seconds;
  };

  private *tallies(): Iterable<RouteTally> {
    yield* this.byRoute.values();
    yield this.unmatched;
  }

  /** Rows of a counter of requests: one per route, method and status seen. */
  counterRows(): { labels: Record<string, string | number>; value: number }[] {
    const rows = [];
    for (const t of this.tallies())
      for (const [status, slots] of t.byStatus) rows.push({ labels: { method: t.method, route: t.route, status }, value: slots[COUNT] });
    return rows;
  }

  /** Rows of a Prometheus histogram named `name` (cumulative buckets, +Inf, _sum, _count). */
  histogramRows(name: string): HistogramRow[] {
    const rows: HistogramRow[] = [];
    for (const t of this.tallies())
      for (const [status, slots] of t.byStatus) {
        const labels = { method: t.method, route: t.route, status };
        let cumulative = 0;
        for (let i = 0; i < N; i++) {
          cumulative += slots[i];
          rows.push({ metricName: `${name}_bucket`, labels: { ...labels, le: LATENCY_BUCKETS[i] }, value: cumulative });
        }
        rows.push({ metricName: `${name}_bucket`, labels: { ...labels, le: '+Inf' }, value: slots[COUNT] });
        rows.push({ metricName: `${name}_sum`, labels, value: slots[SUM] });
        rows.push({ metricName: `${name}_count`, labels, value: slots[COUNT] });
      }
    return rows;
  }
}
