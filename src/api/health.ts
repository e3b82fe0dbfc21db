// Public health endpoints: liveness, readiness (names the failing check), node telemetry
// for load balancers, and the OpenAPI document. Readiness and telemetry list the parsing
// engines the node found at start and those it lacks (src/engines/inventory.ts).
import os from 'node:os';
import { Type } from '@sinclair/typebox';
import type { RouteDef } from '../http/route.js';
import { problem } from '../http/problem.js';
import { DependencyUnavailableError, type Dependency } from '../errors/dependency-unavailable.js';
import type { DepthReading } from '../jobs/depth-cache.js';
import type { PoolStats } from '../pipeline/pool.js';
import type { Role } from '../config.js';
import { engineInventory, engineReport, type EngineInventory } from '../engines/inventory.js';
import { EnginesSchema } from '../engines/schema.js';

export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
}

export interface HealthDeps {
  nodeId: string;
  region: string;
  roles: Role[];
  version: string;
  checks: ReadinessCheck[];
  activeRequests(): number;
  accepting(): boolean;
  poolStats(): PoolStats | null;
  /** The parsing process (worker role): restarts since start, resident memory at its last sample. */
  parser(): { restarts: number; rssBytes: number | null } | null;
  /** The queue's depth from the node's one-second cache (jobs/depth-cache.ts). */
  queueDepth(): Promise<DepthReading>;
  openapi(): Record<string, unknown>;
  /** The node's engine inventory, taken at start (default: the process's, see engineInventory). */
  engines?: () => EngineInventory;
}

/** Busy and total CPU time of the whole machine so far, all cores (ms). */
function machineTimes(): { busy: number; total: number } {
  let busy = 0;
  let total = 0;
  for (const { times } of os.cpus()) {
    const all = times.user + times.nice + times.sys + times.irq + times.idle;
    total += all;
    busy += all - times.idle;
  }
  return { busy, total };
}

/**
 * CPU use over the last sampling interval (sampled every second): this process's, in % of one
 * core, and the whole machine's, in % of all its cores — the parsing process and its engines
 * (LibreOffice, GDAL …) are other processes, so the machine's figure is the one a balancer weighs.
 */
class CpuSampler {
  private last = process.cpuUsage();
  private lastAt = performance.now();
  private lastMachine = machineTimes();
  percent = 0;
  machinePercent = 0;
  private readonly timer = setInterval(() => this.sample(), 1000);
  constructor() {
    this.timer.unref();
  }
  private sample(): void {
    const now = performance.now();
    const usage = process.cpuUsage(this.last);
    const elapsedUs = (now - this.lastAt) * 1000;
    this.percent = elapsedUs > 0 ? Math.round(((usage.user + usage.system) / elapsedUs) * 1000) / 10 : 0;
    this.last = process.cpuUsage();
    this.lastAt = now;
    const machine = machineTimes();
    const total = machine.total - this.lastMachine.total;
    this.machinePercent = total > 0 ? Math.round(((machine.busy - this.lastMachine.busy) / total) * 1000) / 10 : 0;
    this.lastMachine = machine;
  }
  stop(): void {
    clearInterval(this.timer);
  }
}

const Depth = { waiting: Type.Integer(), active: Type.Integer(), delayed: Type.Integer() };

const NodeState = Type.Object({
  nodeId: Type.String(),
  region: Type.String(),
  roles: Type.Array(Type.String()),
  version: Type.String(),
  state: Type.Union([Type.Literal('accepting'), Type.Literal('draining')], {
    description: '`draining` from the moment the node is told to stop (SIGTERM): send it nothing new.',
  }),
  acceptingTraffic: Type.Boolean({ description: '`state` is `accepting`.' }),
  uptimeSeconds: Type.Number(),
  cpu: Type.Object({
    processPercent: Type.Number({ description: 'This process, % of one core, over the last second.' }),
    machinePercent: Type.Number({ description: 'The whole machine (the parsing process and engines included), % of all cores, over the last second.' }),
    cores: Type.Integer(),
    loadAverage: Type.Array(Type.Number()),
  }),
  memory: Type.Object({
    rssBytes: Type.Integer({ description: "This process's resident memory." }),
    parserRssBytes: Type.Union([Type.Integer(), Type.Null()], {
      description: "The parsing process's resident memory (sampled every 250 ms); null on a node without the worker role or while it restarts.",
    }),
    heapUsedBytes: Type.Integer(),
    heapTotalBytes: Type.Integer(),
    systemTotalBytes: Type.Integer(),
    systemFreeBytes: Type.Integer(),
  }),
  activeRequests: Type.Integer(),
  workerPool: Type.Union([
    Type.Object({
      threads: Type.Integer(),
      queued: Type.Integer(),
      running: Type.Integer(),
      utilization: Type.Number(),
      parserRestarts: Type.Integer({ description: 'Parsing processes lost (crash, memory ceiling, deadline) and started again since the node started.' }),
    }),
    Type.Null(),
  ]),
  jobQueue: Type.Union(
    [
      Type.Object({
        ...Depth,
        lanes: Type.Object({ light: Type.Object(Depth), heavy: Type.Object(Depth) }, { description: 'The same counts, lane by lane.' }),
      }),
      Type.Null(),
    ],
    { description: 'The job queue (the cluster’s, in Redis mode), read at most once a second; null while it does not answer.' },
  ),
  engines: EnginesSchema,
});

const CORES = os.availableParallelism();

function sampleSystem() {
  return {
    mem: process.memoryUsage(),
    loadAverage: os.loadavg().map((x) => Math.round(x * 100) / 100),
    systemTotalBytes: os.totalmem(),
    systemFreeBytes: os.freemem(),
  };
}

/**
 * Longest wait for one readiness check. The job store's and control plane's checks fail at
 * once while their service is unreachable; this bounds one that hangs (a stopped or
 * partitioned server), so /health/ready names the failing dependency within a second.
 */
export const READINESS_CHECK_TIMEOUT_MS = 800;

/** Runs one check: 'ok', or why it failed, with the dependency when one is unreachable. */
async function runCheck(c: ReadinessCheck): Promise<{ result: string; unreachable?: Dependency }> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      c.check(),
      new Promise((_, rej) => {
        timer = setTimeout(() => rej(new Error(`timed out after ${READINESS_CHECK_TIMEOUT_MS} ms`)), READINESS_CHECK_TIMEOUT_MS);
        timer.unref();
      }),
    ]);
    return { result: 'ok' };
  } catch (err) {
    if (err instanceof DependencyUnavailableError) return { result: `${err.dependency} unreachable: ${err.reason}`, unreachable: err.dependency };
    return { result: (err as Error).message || 'failed' };
  } finally {
    clearTimeout(timer);
  }
}

// A missing engine does not make the node unready: it still serves every other format, and
// refuses the uploads that need the engine (503 engine_unavailable).
const Ready = Type.Object({ status: Type.Literal('ready'), checks: Type.Record(Type.String(), Type.Literal('ok')), engines: EnginesSchema });
const NoQuery = Type.Object({}, { additionalProperties: false });

export function healthRoutes(d: HealthDeps): { routes: RouteDef[]; stop(): void } {
  const cpu = new CpuSampler();
  const engines = () => engineReport((d.engines ?? engineInventory)());
  let system = { at: 0, ...sampleSystem() };

  const routes: RouteDef[] = [
    {
      method: 'GET',
      path: '/health/live',
      operationId: 'live',
      summary: 'Liveness: the process serves HTTP',
      tags: ['health'],
      auth: 'public',
      query: NoQuery,
      responses: { 200: { description: 'Alive.', schema: Type.Object({ status: Type.Literal('live') }) } },
      handler: async () => ({ status: 200, json: { status: 'live' } }),
    },
    {
      method: 'GET',
      path: '/health/ready',
      operationId: 'ready',
      summary: 'Readiness: control-plane store, job store and worker pool are usable',
      tags: ['health'],
      auth: 'public',
      query: NoQuery,
      responses: {
        200: {
          description: 'Ready; `engines.missing` lists parsing engines this node lacks (it stays ready and refuses only the uploads that need them).',
          schema: Ready,
        },
      },
      errors: ['not_ready'],
      handler: async () => {
        const outcomes = await Promise.all(d.checks.map(async (c) => ({ name: c.name, ...(await runCheck(c)) })));
        const results = outcomes.map((o) => [o.name, o.result] as const);
        const failing = results.filter(([, r]) => r !== 'ok');
        if (failing.length || !d.accepting()) {
          const names = failing.map(([n]) => n);
          const unreachable = [...new Set(outcomes.flatMap((o) => (o.unreachable ? [o.unreachable] : [])))];
          throw problem(
            'not_ready',
            failing.length ? `Failing checks: ${failing.map(([n, r]) => `${n} (${r})`).join('; ')}.` : 'The node is draining.',
            {
              failing: names,
              ...(unreachable.length ? { unreachable } : {}),
              checks: Object.fromEntries(results),
            },
            { 'Retry-After': '5' },
          );
        }
        return { status: 200, json: { status: 'ready', checks: Object.fromEntries(results), engines: engines() } };
      },
    },
    {
      method: 'GET',
      path: '/health/node-state',
      operationId: 'nodeState',
      summary: 'Node telemetry for load-balancer routing',
      tags: ['health'],
      auth: 'public',
      query: NoQuery,
      responses: { 200: { description: 'Telemetry.', schema: NodeState } },
      handler: async () => {
        const depth = await d.queueDepth();
        // Memory and OS figures are sampled at most every 250 ms: a load balancer polling
        // many times a second should not pay ~15 µs of system calls per poll.
        const now = Date.now();
        if (now - system.at > 250) system = { at: now, ...sampleSystem() };
        const { mem, loadAverage, systemTotalBytes, systemFreeBytes } = system;
        const pool = d.poolStats();
        const parser = d.parser();
        const accepting = d.accepting();
        return {
          status: 200,
          json: {
            nodeId: d.nodeId,
            region: d.region,
            roles: d.roles,
            version: d.version,
            state: accepting ? 'accepting' : 'draining',
            acceptingTraffic: accepting,
            uptimeSeconds: Math.round(process.uptime()),
            cpu: { processPercent: cpu.percent, machinePercent: cpu.machinePercent, cores: CORES, loadAverage },
            memory: {
              rssBytes: mem.rss,
              parserRssBytes: parser?.rssBytes ?? null,
              heapUsedBytes: mem.heapUsed,
              heapTotalBytes: mem.heapTotal,
              systemTotalBytes,
              systemFreeBytes,
            },
            activeRequests: d.activeRequests(),
            workerPool: pool ? { ...pool, parserRestarts: parser?.restarts ?? 0 } : null,
            jobQueue: depth.total && depth.lanes ? { ...depth.total, lanes: depth.lanes } : null,
            engines: engines(),
          },
        };
      },
    },
    {
      method: 'GET',
      path: '/openapi/v1.json',
      operationId: 'openapi',
      summary: 'This API’s OpenAPI 3.1 description',
      tags: ['meta'],
      auth: 'public',
      query: NoQuery,
      responses: { 200: { description: 'OpenAPI 3.1 document.', schema: Type.Object({}, { additionalProperties: true }) } },
      handler: async () => ({ status: 200, json: d.openapi() }),
    },
  ];
  return { routes, stop: () => cpu.stop() };
}
