// The node's Prometheus metrics (GET /metrics, metrics-route.ts), through prom-client. Cheap on
// the request and job paths: requests and jobs are counted in place (request-tallies.ts,
// job-tallies.ts) and become prom-client values only when scraped; gauges (pool, queue depth,
// parsing process) are read on scrape, the queue's depth from the one-second cache that
// node-state shares (jobs/depth-cache.ts), never per request.
import { Counter, Gauge, Histogram, Registry, type LabelValues } from 'prom-client';
import { RequestTallies } from './request-tallies.js';
import { JobTallies } from './job-tallies.js';
import type { DepthReading } from '../jobs/depth-cache.js';

/** What the node lends the gauges, read at scrape time. */
export interface MetricSources {
  activeRequests(): number;
  accepting(): boolean;
  /** The parsing pool (worker role), or null. */
  pool(): { threads: number; queued: number; running: number; utilization: number } | null;
  /** Parsing processes lost and restarted since the node started (worker role), or null. */
  parserRestarts(): number | null;
  /** Resident memory of the parsing process (bytes), or null. */
  parserRssBytes(): number | null;
  queueDepth(): Promise<DepthReading>;
}

type Rows = () => { labels: Record<string, string | number>; value: number }[];

/** A prom-client counter whose values are the tallies' at scrape time. */
function talliedCounter(registry: Registry, name: string, help: string, labelNames: string[], rows: Rows): void {
  new Counter({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      this.reset();
      for (const r of rows()) this.inc(r.labels, r.value);
    },
  });
}

/** A prom-client histogram whose buckets are the request tallies' at scrape time. */
class TalliedHistogram extends Histogram<string> {
  constructor(
    registry: Registry,
    private readonly tallies: RequestTallies,
    private readonly metricName: string,
    private readonly helpText: string,
  ) {
    super({ name: metricName, help: helpText, labelNames: ['method', 'route', 'status'], registers: [registry] });
  }
  // The registry prints what getForPromString gives (get() is for JSON): both are the tallies'.
  async getForPromString() {
    return this.get();
  }
  override async get() {
    const values = this.tallies.histogramRows(this.metricName).map((r) => ({ ...r, labels: r.labels as LabelValues<string> }));
    return { name: this.metricName, help: this.helpText, type: 'histogram', aggregator: 'sum', values } as unknown as Awaited<
      ReturnType<Histogram<string>['get']>
    >;
  }
}

export class NodeMetrics {
  readonly registry = new Registry();
  readonly requests = new RequestTallies();
  readonly jobs = new JobTallies();
  private sources: MetricSources | null = null;

  constructor() {
    const r = this.registry;
    talliedCounter(r, 'docparse_http_requests_total', 'HTTP requests answered, by route pattern, method and status.', ['method', 'route', 'status'], () =>
      this.requests.counterRows(),
    );
    new TalliedHistogram(
      r,
      this.requests,
      'docparse_http_request_duration_seconds',
      'Time from a request’s arrival to its last byte answered, by route pattern, method and status.',
    );
    talliedCounter(
      r,
      'docparse_jobs_total',
      'Jobs this node accepted (queued) or moved to completed, failed, retrying or handed back, by family.',
      ['family', 'state'],
      () => this.jobs.jobRows(),
    );
    talliedCounter(r, 'docparse_document_units_charged_total', 'Document Units charged for jobs this node completed, by family.', ['family'], () =>
      this.jobs.unitRows(),
    );
    talliedCounter(r, 'docparse_engine_seconds_total', 'Time parse tasks of this node spent in the parsing process, by family.', ['family'], () =>
      this.jobs.engineRows(),
    );
    talliedCounter(
      r,
      'docparse_quota_refusals_total',
      'Quota refusals: uploads refused (429 quota_exceeded) and jobs failed for lack of Document Units.',
      ['stage'],
      () => this.jobs.quotaRows(),
    );

    const source = () => this.sources;
    new Gauge({
      name: 'docparse_http_active_requests',
      help: 'Requests received and not yet answered.',
      registers: [r],
      collect() {
        this.set(source()?.activeRequests() ?? 0);
      },
    });
    new Gauge({
      name: 'docparse_node_accepting',
      help: '1 while the node accepts traffic, 0 once it drains.',
      registers: [r],
      collect() {
        this.set(source()?.accepting() ? 1 : 0);
      },
    });
    new Gauge({
      name: 'docparse_pool_threads',
      help: 'Parsing threads, by state: started, running a task, tasks queued (worker role).',
      labelNames: ['state'],
      registers: [r],
      collect() {
        this.reset();
        const p = source()?.pool();
        if (!p) return;
        this.set({ state: 'started' }, p.threads);
        this.set({ state: 'running' }, p.running);
        this.set({ state: 'queued' }, p.queued);
      },
    });
    new Gauge({
      name: 'docparse_pool_utilization',
      help: 'Share of the parsing threads’ time spent on tasks (0–1, Piscina’s measure; worker role).',
      registers: [r],
      collect() {
        this.reset();
        const p = source()?.pool();
        if (p) this.set(p.utilization);
      },
    });
    new Counter({
      name: 'docparse_parser_restarts_total',
      help: 'Parsing processes lost (crash, memory ceiling, deadline) and started again (worker role).',
      registers: [r],
      collect() {
        this.reset();
        const n = source()?.parserRestarts();
        if (n != null) this.inc(n);
      },
    });
    new Gauge({
      name: 'docparse_parser_resident_memory_bytes',
      help: 'Resident memory of the parsing process (worker role).',
      registers: [r],
      collect() {
        this.reset();
        const b = source()?.parserRssBytes();
        if (b != null) this.set(b);
      },
    });
    new Gauge({
      name: 'docparse_process_resident_memory_bytes',
      help: 'Resident memory of the node’s own process.',
      registers: [r],
      collect() {
        this.set(process.memoryUsage.rss());
      },
    });
    new Gauge({
      name: 'docparse_queue_depth',
      help: 'Deliveries in the job queue (the cluster’s, in Redis mode), by lane and state; read at most once a second.',
      labelNames: ['lane', 'state'],
      registers: [r],
      async collect() {
        this.reset();
        const lanes = (await source()?.queueDepth())?.lanes;
        if (!lanes) return;
        for (const [lane, d] of Object.entries(lanes)) {
          this.set({ lane, state: 'waiting' }, d.waiting);
          this.set({ lane, state: 'active' }, d.active);
          this.set({ lane, state: 'delayed' }, d.delayed);
        }
      },
    });
  }

  /** Hands the gauges what they read, once the node's parts exist. */
  attach(sources: MetricSources): void {
    this.sources = sources;
  }

  /** The Prometheus text exposition and its content type. */
  async scrape(): Promise<{ text: string; contentType: string }> {
    return { text: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}
