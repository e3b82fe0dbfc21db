// LibreOffice never outlives its node, and nothing it leaves is a zombie. A real node
// (`docparse serve`, in a process group of its own) converts a generated RTF that keeps a real
// LibreOffice busy for minutes; the node's whole group is killed with -9, or its tasks time
// out. Every LibreOffice process of a run is told apart by the run's own TMPDIR, which its
// profile path (in every soffice command line) is under.
import fs from 'node:fs/promises';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { pino } from 'pino';
import { cliEntry, freePort, REPO_ROOT, tempDir, waitFor } from '../helpers/http.js';
import { getToken } from '../helpers/node.js';
import { parserSettings } from '../helpers/parser-settings.js';
import { sofficePath } from '../../src/formats/kit/engine-locations.js';
import { ParseHost } from '../../src/pipeline/parse-host.js';
import { ownStartedAtMs, processScope, processStartedAtMs } from '../../src/data-dir/process-liveness.js';

vi.setConfig({ testTimeout: 240_000, hookTimeout: 120_000 });

const CLIENT_ID = 'lifetime-demo';
const CLIENT_SECRET = 'lifetime-demo-secret-0123456789';

interface Proc {
  pid: number;
  ppid: number;
  state: string;
  cmdline: string;
}

/** Every process this machine shows, from /proc. */
function processes(): Proc[] {
  const out: Proc[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' ');
      out.push({ pid: Number(name), state: fields[0], ppid: Number(fields[1]), cmdline });
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}

/** A table with this many rows keeps LibreOffice's layout busy for minutes (1.5 MB of RTF). */
function slowRtf(rows = 20_000): string {
  const row = (i: number) => `\\trowd\\cellx2000\\cellx4000\\cellx6000 r${i}a\\cell r${i}b\\cell r${i}c\\cell\\row`;
  return `{\\rtf1\\ansi ${Array.from({ length: rows }, (_, i) => row(i)).join('\n')}}`;
}

interface Run {
  dir: string;
  /** Under the run's TMPDIR: in every LibreOffice command line of the run. */
  marker: string;
  node: ChildProcess;
  url: string;
  token: string;
  /** LibreOffice processes of this run that are not dead (a zombie is dead). */
  liveOffice(): Proc[];
  /** Zombies that are this run's: LibreOffice's, or children of the node or its parsing process. */
  zombies(): Proc[];
  parsingProcess(): Proc | undefined;
  upload(documentId: string): Promise<void>;
  status(documentId: string): Promise<{ statusInt: number; error?: { message: string } }>;
}

const runs: Run[] = [];

/** `docparse serve` as its own process group, as a supervisor or a container runs it. */
async function startRun(env: Record<string, string>): Promise<Run> {
  const dir = await tempDir('dp-lifetime-');
  const tmp = path.join(dir, 'tmp');
  await fs.mkdir(tmp);
  const port = await freePort();
  const node = spawn(process.execPath, [cliEntry(), 'serve'], {
    cwd: REPO_ROOT,
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      ...process.env,
      TMPDIR: tmp,
      PORT: String(port),
      DOCPARSE_DATA_DIR: path.join(dir, 'data'),
      DOCPARSE_WORKER_THREADS: '1',
      DOCPARSE_DEMO_CLIENT_ID: CLIENT_ID,
      DOCPARSE_DEMO_CLIENT_SECRET: CLIENT_SECRET,
      LOG_LEVEL: 'warn',
      ...env,
    },
  });
  let stderr = '';
  node.stderr!.on('data', (d) => (stderr += d));
  const url = `http://127.0.0.1:${port}`;
  await waitFor(
    async () => {
      if (node.exitCode !== null) throw new Error(`docparse exited during start:\n${stderr}`);
      return (await fetch(`${url}/health/ready`).catch(() => null))?.ok;
    },
    'the node to be ready',
    90_000,
  );
  const token = await getToken(url, CLIENT_ID, CLIENT_SECRET);
  const parsingProcess = () => processes().find((p) => p.ppid === node.pid && p.cmdline.includes('host-process.js'));
  const run: Run = {
    dir,
    marker: tmp,
    node,
    url,
    token,
    parsingProcess,
    liveOffice: () => processes().filter((p) => p.cmdline.includes(tmp) && p.state !== 'Z'),
    zombies: () => {
      const ours = new Set([node.pid, parsingProcess()?.pid]);
      return processes().filter((p) => p.state === 'Z' && (ours.has(p.ppid) || p.cmdline.includes(tmp)));
    },
    upload: async (documentId) => {
      const res = await fetch(`${url}/api/v1/documents/upload?${new URLSearchParams({ fileName: `${documentId}.rtf`, documentId })}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: slowRtf(),
      });
      expect(res.status, await res.text()).toBe(202);
    },
    status: async (documentId) =>
      (await (await fetch(`${url}/api/v1/documents/${documentId}/status`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
        statusInt: number;
        error?: { message: string };
      },
  };
  runs.push(run);
  return run;
}

function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    /* gone */
  }
}

afterEach(async () => {
  for (const run of runs.splice(0)) {
    killGroup(run.node.pid!);
    // Anything of the run still alive is a failure already reported; do not leave it running.
    for (const p of run.liveOffice()) killGroup(p.pid);
    await fs.rm(run.dir, { recursive: true, force: true });
  }
});

const hasLibreOffice = sofficePath(parserSettings().engines) !== null;

describe.skipIf(!hasLibreOffice)('LibreOffice and the node', () => {
  it('kill -9 of the node’s whole process group: no LibreOffice process of the node survives', async () => {
    const run = await startRun({});
    await run.upload('slow-kill');
    await waitFor(() => run.liveOffice().some((p) => p.cmdline.includes('soffice.bin')), 'LibreOffice (soffice.bin) to be converting', 60_000);
    expect(run.parsingProcess()).toBeDefined();

    const killedAt = performance.now();
    killGroup(run.node.pid!);
    await waitFor(() => run.liveOffice().length === 0, 'every LibreOffice process of the node to die', 5000);
    console.log(`LibreOffice gone ${Math.round(performance.now() - killedAt)} ms after kill -9 of the node's process group`);
    expect(run.parsingProcess()).toBeUndefined();
  });

  it('tasks stopped at their timeout leave no LibreOffice running and no zombie', async () => {
    const run = await startRun({ DOCPARSE_TASK_TIMEOUT_SECONDS: '6' });
    for (const id of ['slow-timeout-1', 'slow-timeout-2']) {
      await run.upload(id);
      // LibreOffice is seen converting before the task is stopped (an RTF is converted and
      // rendered at once: two runs per task).
      let sawOffice = false;
      const failed = await waitFor(
        async () => {
          sawOffice ||= run.liveOffice().some((p) => p.cmdline.includes('soffice.bin'));
          const s = await run.status(id);
          return s.statusInt === 9 ? s : null;
        },
        `${id} to fail`,
        60_000,
      );
      expect(sawOffice).toBe(true);
      expect(failed.error?.message).toMatch(/took longer than 6 s/);
      const failedAt = performance.now();
      await waitFor(() => run.liveOffice().length === 0, 'the timed-out task’s LibreOffice to die', 5000);
      console.log(`LibreOffice gone ${Math.round(performance.now() - failedAt)} ms after ${id} failed at its timeout`);
    }
    // Reaped: the parsing process waits for what it started, init for what they left behind.
    await waitFor(() => run.zombies().length === 0, 'no zombie of the run', 10_000).catch(() => {});
    expect(run.zombies()).toEqual([]);
    expect(run.parsingProcess()).toBeDefined();
  });
});

describe('groups left by a parsing process that died with its node', () => {
  let tmp: string;
  const sleepers: ChildProcess[] = [];
  const realTmp = process.env.TMPDIR;

  afterAll(async () => {
    for (const s of sleepers) killGroup(s.pid!);
    if (realTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = realTmp;
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  });

  /** A process group of its own, as LibreOffice's is. */
  const startGroup = () => {
    const s = spawn('sleep', ['600'], { detached: true, stdio: 'ignore' });
    sleepers.push(s);
    return s;
  };
  const exited = (s: ChildProcess) => new Promise<void>((r) => (s.exitCode !== null || s.signalCode !== null ? r() : s.once('exit', () => r())));

  it('the next parsing process kills them, unless their owner still runs or the leader’s pid was reused', async () => {
    tmp = await tempDir('dp-groups-');
    const records = path.join(tmp, 'docparse-process-groups');
    await fs.mkdir(records);
    const deadOwner = spawnSync('true').pid!;
    const record = async (pgid: number, over: object) =>
      fs.writeFile(
        path.join(records, `${pgid}.json`),
        JSON.stringify({
          scope: processScope(),
          pgid,
          leaderStartedAtMs: processStartedAtMs(pgid),
          ownerPid: deadOwner,
          ownerStartedAtMs: Date.now(),
          ...over,
        }),
      );
    const orphaned = startGroup();
    const reused = startGroup();
    const othersLive = startGroup();
    await record(orphaned.pid!, {});
    await record(reused.pid!, { leaderStartedAtMs: processStartedAtMs(reused.pid!)! - 60_000 });
    await record(othersLive.pid!, { ownerPid: process.pid, ownerStartedAtMs: ownStartedAtMs() });

    // The parsing process takes its temp dir from the environment it inherits.
    process.env.TMPDIR = tmp;
    const host = new ParseHost({
      threads: 1,
      taskTimeoutMs: 60_000,
      maxHeapMb: 512,
      maxProcessRssMb: 8192,
      parsers: parserSettings(),
      logger: pino({ level: 'silent' }),
    });
    try {
      expect(await host.whenReady(60_000)).toBe(true);
      await exited(orphaned);
      expect(orphaned.signalCode).toBe('SIGKILL');
      expect(reused.exitCode === null && reused.signalCode === null).toBe(true);
      expect(othersLive.exitCode === null && othersLive.signalCode === null).toBe(true);
      expect((await fs.readdir(records)).sort()).toEqual([`${othersLive.pid}.json`]);
    } finally {
      await host.close();
    }
  });
});
