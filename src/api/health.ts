// Public health endpoints: liveness, readiness (names the failing check), node telemetry
// for load balancers, and the OpenAPI document. Readiness and telemetry list the parsing
// engines the node found at start and those it lacks (src/engines/inventory.ts).
import os from 'node:os';
import { Type } from '@sinclair/typebox';
import type { RouteDef } from '../http/route.js';
import { problem } from '../http/problem.js';
import { DependencyUnavailableError, type Dependency } from '../errors/dependency-unavailable.js';
import type { QueueDepth } from '../jobs/types.js';
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
  queueDepth(): Promise<QueueDepth | null>;
  openapi(): Record<string, unknown>;
  /** The node's engine inventory, taken at start (default: the process's, see engineInventory). */
  engines?: () => EngineInventory;
}

/** CPU percent of this process over the last sampling interval (sampled every second). */
class CpuSampler {
  private last = process.cpuUsage();
  private lastAt = performance.now();
  percent = 0;
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
  }
  stop(): void {
    clearInterval(this.timer);
  }
}

const NodeState = Type.Object({
  nodeId: Type.String(),
  region: Type.String(),
  roles: Type.Array(Type.String()),
  version: Type.String(),
  acceptingTraffic: Type.Boolean(),
  uptimeSeconds: Type.Number(),
  cpu: Type.Object({
    processPercent: Type.Number({ description: 'This process, % of one core, over the last second.' }),
    cores: Type.Integer(),
    loadAverage: Type.Array(Type.Number()),
  }),
  memory: Type.Object({
    rssBytes: Type.Integer(),
    heapUsedBytes: Type.Integer(),
    heapTotalBytes: Type.Integer(),
    systemTotalBytes: Type.Integer(),
    systemFreeBytes: Type.Integer(),
  }),
  activeRequests: Type.Integer(),
  workerPool: Type.Union([Type.Object({ threads: Type.Integer(), queued: Type.Integer(), running: Type.Integer(), utilization: Type.Number() }), Type.Null()]),
  jobQueue: Type.Union([Type.Object({ waiting: Type.Integer(), active: Type.Integer(), delayed: Type.Integer() }), Type.Null()]),
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
  let depthCache: { at: number; value: QueueDepth | null } = { at: 0, value: null };
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
        if (Date.now() - depthCache.at > 1000) depthCache = { at: Date.now(), value: await d.queueDepth().catch(() => null) };
        // Memory and OS figures are sampled at most every 250 ms: a load balancer polling
        // many times a second should not pay ~15 µs of system calls per poll.
        const now = Date.now();
        if (now - system.at > 250) system = { at: now, ...sampleSystem() };
        const { mem, loadAverage, systemTotalBytes, systemFreeBytes } = system;
        return {
          status: 200,
          json: {
            nodeId: d.nodeId,
            region: d.region,
            roles: d.roles,
            version: d.version,
            acceptingTraffic: d.accepting(),
            uptimeSeconds: Math.round(process.uptime()),
            cpu: { processPercent: cpu.percent, cores: CORES, loadAverage },
            memory: { rssBytes: mem.rss, heapUsedBytes: mem.heapUsed, heapTotalBytes: mem.heapTotal, systemTotalBytes, systemFreeBytes },
            activeRequests: d.activeRequests(),
            workerPool: d.poolStats(),
            jobQueue: depthCache.value,
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
