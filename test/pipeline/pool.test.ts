// The parsing pool: per-task timeout, thread replacement after a crash, retirement of a
// thread that grew past its memory ceiling, and small CSV tasks run without a thread.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ParsePool, PoolTaskError } from '../../src/pipeline/pool.js';
import { INLINE_MAX_BYTES } from '../../src/pipeline/inline-tasks.js';
import type { ParseTask } from '../../src/pipeline/task.js';
import { parserSettings } from '../helpers/parser-settings.js';

let dir: string;
let bigCsv: string;
let smallCsv: string;

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dp-pool-'));
  bigCsv = path.join(dir, 'big.csv');
  smallCsv = path.join(dir, 'small.csv');
  await fs.writeFile(bigCsv, 'a,b,c\n' + Array.from({ length: 600_000 }, (_, i) => `${i},x${i},${i / 3}`).join('\n'));
  await fs.writeFile(smallCsv, 'a,b\n1,2\n');
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const task = (input: string, name: string): ParseTask => ({
  documentId: name,
  fileName: path.basename(input),
  format: 'csv',
  options: { csvRoute: 'Tabular' },
  customMetadata: null,
  inputPath: input,
  artifactPath: path.join(dir, `${name}.json`),
  tempDir: dir,
});

const threadIds = (pool: ParsePool) => (pool as unknown as { piscina: { threads: { threadId: number }[] } }).piscina.threads.map((t) => t.threadId);

describe('ParsePool', () => {
  it('stops a task that runs past its timeout and keeps serving', async () => {
    const pool = new ParsePool({ parsers: parserSettings(), threads: 1, taskTimeoutMs: 30, maxHeapMb: 256 });
    try {
      const err = await pool.run(task(bigCsv, 'slow')).catch((e) => e);
      expect(err).toBeInstanceOf(PoolTaskError);
      expect((err as PoolTaskError).kind).toBe('timeout');
      expect((err as Error).message).toMatch(/longer than/);
    } finally {
      await pool.close();
    }
    const fresh = new ParsePool({ parsers: parserSettings(), threads: 1, taskTimeoutMs: 30_000, maxHeapMb: 256 });
    try {
      expect(await fresh.run(task(smallCsv, 'after'))).toMatchObject({ ok: true, documentUnits: 1 });
    } finally {
      await fresh.close();
    }
  });

  it('a thread past its memory ceiling retires after its task and a fresh one takes the next', async () => {
    const pool = new ParsePool({ parsers: parserSettings(), threads: 1, taskTimeoutMs: 30_000, maxHeapMb: 256, recycleAboveMb: 1 });
    try {
      expect(await pool.run(task(smallCsv, 'one'))).toMatchObject({ ok: true });
      const first = threadIds(pool);
      await new Promise((r) => setTimeout(r, 300));
      expect(await pool.run(task(smallCsv, 'two'))).toMatchObject({ ok: true });
      const second = threadIds(pool);
      expect(second.some((id) => !first.includes(id))).toBe(true);
    } finally {
      await pool.close();
    }
  });

  it('keeps its threads when under the ceiling', async () => {
    const pool = new ParsePool({ parsers: parserSettings(), threads: 1, taskTimeoutMs: 30_000, maxHeapMb: 256, recycleAboveMb: 4096 });
    try {
      await pool.run(task(smallCsv, 'a'));
      const first = threadIds(pool);
      await new Promise((r) => setTimeout(r, 300));
      await pool.run(task(smallCsv, 'b'));
      expect(threadIds(pool)).toEqual(first);
    } finally {
      await pool.close();
    }
  });

  it('runs a small CSV on the calling thread and hands larger or unsized ones to a thread', async () => {
    const pool = new ParsePool({ parsers: parserSettings(), threads: 1, taskTimeoutMs: 30_000, maxHeapMb: 256 });
    try {
      const small = { ...task(smallCsv, 'inline'), inputBytes: (await fs.stat(smallCsv)).size };
      expect(await pool.run(small)).toMatchObject({ ok: true, documentUnits: 1 });
      expect(JSON.parse(await fs.readFile(small.artifactPath, 'utf8'))).toMatchObject({ documentId: 'inline', content: { rowCount: 1 } });
      expect(threadIds(pool)).toEqual([]);
      expect(await pool.run({ ...task(smallCsv, 'declared-large'), inputBytes: INLINE_MAX_BYTES + 1 })).toMatchObject({ ok: true });
      expect(threadIds(pool)).toHaveLength(1);
      expect(await pool.run(task(smallCsv, 'unsized'))).toMatchObject({ ok: true });
    } finally {
      await pool.close();
    }
  });

  it('answers "cancelled" for an inline task whose job was cancelled before or while it ran', async () => {
    const pool = new ParsePool({ parsers: parserSettings(), threads: 1, taskTimeoutMs: 30_000, maxHeapMb: 256 });
    try {
      const inputBytes = (await fs.stat(smallCsv)).size;
      const before = new AbortController();
      before.abort();
      const early = await pool.run({ ...task(smallCsv, 'cancelled-early'), inputBytes }, before.signal).catch((e) => e);
      expect((early as PoolTaskError).kind).toBe('cancelled');
      const during = new AbortController();
      const running = pool.run({ ...task(smallCsv, 'cancelled-while-running'), inputBytes }, during.signal).catch((e) => e);
      during.abort();
      expect(((await running) as PoolTaskError).kind).toBe('cancelled');
      expect(pool.stats().running).toBe(0);
    } finally {
      await pool.close();
    }
  });
});
