// The supervised parsing process: whatever a task does to it (a heap-limit abort, a runaway
// resident size, a kill from outside, a hung LibreOffice), the task ends with a reason, the
// process is replaced, only the culprit is blamed, and no subprocess outlives its task.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { ParseHost, readRssMb, type ParseHostOptions } from '../../src/pipeline/parse-host.js';
import { PoolTaskError } from '../../src/pipeline/pool.js';
import type { ParseTask } from '../../src/pipeline/task.js';
import { writeWideXlsx } from '../helpers/workbooks.js';
import { parserSettings } from '../helpers/parser-settings.js';

vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });

let dir: string;
let bigCsv: string;
let smallCsv: string;
let wideXlsx: string;
const hosts: ParseHost[] = [];

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dp-host-'));
  bigCsv = path.join(dir, 'big.csv');
  smallCsv = path.join(dir, 'small.csv');
  await fs.writeFile(bigCsv, 'a,b,c\n' + Array.from({ length: 1_500_000 }, (_, i) => `${i},x${i},${i / 3}`).join('\n'));
  await fs.writeFile(smallCsv, 'a,b\n1,2\n');
  wideXlsx = path.join(dir, 'wide.xlsx');
  await writeWideXlsx(wideXlsx, 300_000, 8);
});
afterAll(async () => {
  await Promise.all(hosts.map((h) => h.close()));
  await fs.rm(dir, { recursive: true, force: true });
});

let seq = 0;
const task = (input: string, format = 'csv', options: ParseTask['options'] = { csvRoute: 'Tabular' }): ParseTask => {
  const name = `t${++seq}`;
  return {
    documentId: name,
    fileName: path.basename(input),
    format,
    options,
    customMetadata: null,
    inputPath: input,
    artifactPath: path.join(dir, `${name}.json`),
    tempDir: dir,
  };
};

async function startHost(over: Partial<ParseHostOptions> = {}): Promise<ParseHost> {
  const host = new ParseHost({
    threads: 1,
    taskTimeoutMs: 120_000,
    maxHeapMb: 2048,
    recycleAboveMb: 4096,
    maxProcessRssMb: 16_384,
    parsers: parserSettings(),
    logger: pino({ level: 'silent' }),
    ...over,
  });
  hosts.push(host);
  expect(await host.whenReady(60_000)).toBe(true);
  return host;
}

const failure = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e as PoolTaskError,
  );
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitUntil(cond: () => boolean, what: string, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

describe('ParseHost', () => {
  it('runs tasks in a child process, not in this one', async () => {
    const host = await startHost();
    expect(host.pid).not.toBe(process.pid);
    expect(await host.run(task(smallCsv))).toMatchObject({ ok: true, documentUnits: 1 });
  });

  it("gives the process's own heap a thread's ceiling, since it runs small CSV tasks on its main thread", async () => {
    const host = await startHost({ maxHeapMb: 192 });
    const args = (await fs.readFile(`/proc/${host.pid}/cmdline`, 'utf8')).split('\0');
    expect(args).toContain('--max-old-space-size=192');
    const small = { ...task(smallCsv), inputBytes: (await fs.stat(smallCsv)).size };
    expect(await host.run(small)).toMatchObject({ ok: true, documentUnits: 1 });
  });

  it('a workbook past the thread heap ceiling fails with "memory"; the next task is served', async () => {
    // 300k rows × 8 columns: exceljs holds every cell. Past a 128 MB thread heap, V8 either
    // stops the thread or aborts the whole process (nodejs/node#47224): both must end here.
    const host = await startHost({ maxHeapMb: 128 });
    const err = await failure(host.run(task(wideXlsx, 'xlsx', {})));
    expect(err).toBeInstanceOf(PoolTaskError);
    expect(err!.kind).toBe('memory');
    expect(err!.message).toMatch(/128 MB/);
    expect(await host.run(task(smallCsv))).toMatchObject({ ok: true });
  });

  it('a process past its resident-memory ceiling is replaced and the task fails with "memory"', async () => {
    const host = await startHost({ maxProcessRssMb: 4096 });
    const baseline = readRssMb(host.pid!)!;
    await host.close();
    const tight = await startHost({ maxProcessRssMb: baseline + 200 });
    const pid = tight.pid;
    const err = await failure(tight.run(task(wideXlsx, 'xlsx', {})));
    expect(err?.kind).toBe('memory');
    expect(err!.message).toMatch(new RegExp(`ceiling of ${baseline + 200} MB`));
    await tight.whenReady(60_000);
    expect(tight.pid).not.toBe(pid);
    expect(await tight.run(task(smallCsv))).toMatchObject({ ok: true });
  });

  it('a process that dies with one task in flight blames that task ("crash")', async () => {
    const host = await startHost();
    const run = failure(host.run(task(bigCsv)));
    await waitUntil(() => host.stats().running === 1, 'the task to start');
    await sleep(300);
    process.kill(host.pid!, 'SIGKILL');
    const err = await run;
    expect(err?.kind).toBe('crash');
    expect(host.restarts).toBe(1);
    await host.whenReady(60_000);
    expect(await host.run(task(smallCsv))).toMatchObject({ ok: true });
  });

  it('a process that dies with two tasks in flight blames neither: both run again, alone, and complete', async () => {
    const host = await startHost({ threads: 2 });
    const runs = [host.run(task(bigCsv)), host.run(task(bigCsv))];
    await waitUntil(() => host.stats().running === 2, 'both tasks to start');
    await sleep(300);
    process.kill(host.pid!, 'SIGKILL');
    // The suspects run one at a time after the restart.
    await waitUntil(() => host.restarts === 1 && host.ready(), 'the replacement process');
    await waitUntil(() => host.stats().running === 1, 'a suspect to run');
    expect(host.stats().running).toBe(1);
    const results = await Promise.all(runs);
    for (const r of results) expect(r).toMatchObject({ ok: true, documentUnits: 1 });
  });
});

describe('LibreOffice subprocesses', () => {
  let stub: string;
  let marker: string;
  /** The parsing process runs the stand-in as its soffice (DOCPARSE_SOFFICE, through the settings). */
  const withStub = () => parserSettings({ engines: { soffice: stub } });

  beforeAll(async () => {
    // A LibreOffice that hangs, with a helper process in its group, as soffice.bin would be.
    marker = `docparse-hung-soffice-${process.pid}-${Date.now()}`;
    stub = path.join(dir, 'soffice');
    await fs.writeFile(stub, `#!/bin/bash\n(exec -a ${marker}-helper sleep 600) &\nexec -a ${marker} sleep 600\n`, { mode: 0o755 });
  });
  afterAll(() => {
    try {
      execFileSync('pkill', ['-KILL', '-f', marker]);
    } catch {
      /* none left, as it should be */
    }
  });

  const running = () => {
    try {
      return execFileSync('pgrep', ['-f', marker], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).length;
    } catch {
      return 0;
    }
  };

  it('a task stopped at its timeout takes its hung soffice and its helpers with it', async () => {
    const rtf = path.join(dir, 'hang.rtf');
    await fs.writeFile(rtf, '{\\rtf1\\ansi hello}');
    const host = await startHost({ taskTimeoutMs: 3000, parsers: withStub() });
    const run = failure(host.run(task(rtf, 'rtf', {})));
    await waitUntil(() => running() >= 2, 'the stand-in and its helper');
    const err = await run;
    expect(err?.kind).toBe('timeout');
    await waitUntil(() => running() === 0, 'the hung processes to be killed', 5000);
  });

  it('a cancelled task is stopped at once and takes its hung soffice with it; the process serves on', async () => {
    const rtf = path.join(dir, 'hang3.rtf');
    await fs.writeFile(rtf, '{\\rtf1\\ansi hello}');
    const host = await startHost({ taskTimeoutMs: 120_000, parsers: withStub() });
    const pid = host.pid;
    const cancel = new AbortController();
    const run = failure(host.run(task(rtf, 'rtf', {}), { signal: cancel.signal }));
    await waitUntil(() => running() >= 2, 'the stand-in and its helper');
    cancel.abort();
    expect((await run)?.kind).toBe('cancelled');
    await waitUntil(() => running() === 0, 'the cancelled task’s processes to be killed', 5000);
    expect(host.pid).toBe(pid); // the parsing process itself was not restarted
    expect(host.stats().running).toBe(0);
    // A task cancelled before it starts never runs.
    const early = new AbortController();
    early.abort();
    expect((await failure(host.run(task(rtf, 'rtf', {}), { signal: early.signal })))?.kind).toBe('cancelled');
  });

  it('a parsing process that dies takes the soffice it started with it', async () => {
    const rtf = path.join(dir, 'hang2.rtf');
    await fs.writeFile(rtf, '{\\rtf1\\ansi hello}');
    const host = await startHost({ parsers: withStub() });
    const run = failure(host.run(task(rtf, 'rtf', {})));
    await waitUntil(() => running() >= 2, 'the stand-in and its helper');
    await sleep(200); // the registration reaches the supervisor
    process.kill(host.pid!, 'SIGKILL');
    expect((await run)?.kind).toBe('crash');
    await waitUntil(() => running() === 0, 'the orphaned processes to be killed', 5000);
  });
});
