// The per-task memory budget (DOCPARSE_TASK_MAX_MEMORY_MB): what a task adds to its thread
// outside the V8 heap — ArrayBuffers and WebAssembly memory, which the thread's heap ceiling
// (resourceLimits) leaves free to grow — fails the task with document_too_complex at its next
// checkpoint, and the thread that grew is replaced; through a node, the job fails with a
// reason and nothing is charged. The PDF here is 700 KB whose content stream inflates to
// 150 MB on each of its two pages: PDFium holds it in its WebAssembly memory.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TaskMemory } from '../../src/pipeline/thread-context.js';
import { ExtractionError } from '../../src/formats/kit/types.js';
import { ParsePool } from '../../src/pipeline/pool.js';
import type { ParseTask } from '../../src/pipeline/task.js';
import { parserSettings } from '../helpers/parser-settings.js';
import { createApp, createTestEnv, destroyTestEnv, getToken, startTestNode, waitFor } from '../helpers/node.js';
import { monthOf } from '../../src/tenancy/month.js';
import { readRssMb } from '../../src/pipeline/parse-host.js';
// @ts-expect-error plain .mjs module shared with the fuzzer
import { pdfFromObjects } from '../../bench/fuzz/generators/pdf-lies.mjs';

vi.setConfig({ testTimeout: 120_000 });

const MiB = 1024 * 1024;

/** Two pages sharing one content stream of a text line and `mb` MiB of spaces, deflated (a few hundred KB). */
async function inflatingPdf(mb: number): Promise<Buffer> {
  const deflate = zlib.createDeflate({ level: 1 });
  const parts: Buffer[] = [];
  deflate.on('data', (c: Buffer) => parts.push(c));
  deflate.write('BT /F1 12 Tf 72 720 Td (Hello) Tj ET\n');
  const spaces = Buffer.alloc(MiB, 0x20);
  for (let i = 0; i < mb; i++) deflate.write(spaces);
  deflate.end();
  await once(deflate, 'end');
  const data = Buffer.concat(parts);
  const page = '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 5 0 R /Resources << /Font << /F1 3 0 R >> >> >>';
  return pdfFromObjects([
    null,
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [4 0 R 6 0 R] /Count 2 >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    page,
    { dict: `<< /Length ${data.length} /Filter /FlateDecode >>`, data },
    page,
  ]);
}

describe('TaskMemory', () => {
  it('counts what the task adds in ArrayBuffers and WebAssembly memory, not what the thread held before', () => {
    const before = new Uint8Array(96 * MiB).fill(1);
    const memory = new TaskMemory(64 * MiB);
    expect(() => memory.check()).not.toThrow();
    const buffer = new Uint8Array(64 * MiB).fill(1);
    const wasm = new WebAssembly.Memory({ initial: 1 });
    wasm.grow((48 * MiB) / 65536);
    // 112 MB added (less whatever unrelated garbage V8 collected meanwhile).
    expect(memory.grownBytes()).toBeGreaterThan(64 * MiB);
    let err: unknown;
    try {
      memory.check();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ExtractionError);
    expect((err as ExtractionError).code).toBe('document_too_complex');
    expect((err as ExtractionError).message).toMatch(
      /^Parsing this document was stopped: it took \d+ MB of memory outside the JS heap, more than the 64 MB one parse may use\.$/,
    );
    // Once over, every later checkpoint stops the parse too.
    expect(() => memory.check()).toThrow(ExtractionError);
    expect(before.length + buffer.length + wasm.buffer.byteLength).toBeGreaterThan(0);
  });
});

describe('a pool thread over its task budget', () => {
  let dir: string;
  let bomb: string;
  let small: string;
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dp-task-memory-'));
    bomb = path.join(dir, 'inflating.pdf');
    small = path.join(dir, 'small.pdf');
    await fs.writeFile(bomb, await inflatingPdf(150));
    await fs.writeFile(small, await inflatingPdf(0));
  });
  afterAll(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  const task = (input: string, name: string): ParseTask => ({
    documentId: name,
    fileName: `${name}.pdf`,
    format: 'pdf',
    options: { pdfMode: 'SingleColumn' },
    customMetadata: null,
    inputPath: input,
    artifactPath: path.join(dir, `${name}.json`),
    tempDir: dir,
  });
  const threadIds = (pool: ParsePool) => (pool as unknown as { piscina: { threads: { threadId: number }[] } }).piscina.threads.map((t) => t.threadId);

  it('fails the task with document_too_complex and is replaced; the next task runs on a fresh thread', async () => {
    expect((await fs.stat(bomb)).size).toBeLessThan(1024 * 1024);
    const pool = new ParsePool({ parsers: parserSettings({ memory: { maxBytes: 64 * MiB } }), threads: 1, taskTimeoutMs: 60_000, maxHeapMb: 512 });
    try {
      const first = await pool.run(task(bomb, 'bomb'));
      expect(first).toMatchObject({ ok: false, code: 'document_too_complex', transient: false });
      expect(first.ok === false && first.message).toMatch(
        /^Parsing this document was stopped: it took \d+ MB of memory outside the JS heap, more than the 64 MB one parse may use\.$/,
      );
      const grown = threadIds(pool);
      await new Promise((r) => setTimeout(r, 300));
      expect(await pool.run(task(small, 'after'))).toMatchObject({ ok: true, documentUnits: 2 });
      expect(threadIds(pool).some((id) => !grown.includes(id))).toBe(true);
    } finally {
      await pool.close();
    }
  });

  it('the same document within a larger budget completes', async () => {
    const pool = new ParsePool({ parsers: parserSettings({ memory: { maxBytes: 1024 * MiB } }), threads: 1, taskTimeoutMs: 60_000, maxHeapMb: 512 });
    try {
      expect(await pool.run(task(bomb, 'fits'))).toMatchObject({ ok: true, documentUnits: 2 });
    } finally {
      await pool.close();
    }
  });
});

describe('through a node with DOCPARSE_TASK_MAX_MEMORY_MB=64', () => {
  it('the job fails with document_too_complex, nothing is charged, and the parsing process gives the memory back', async () => {
    const env = await createTestEnv('embedded', { DOCPARSE_WORKER_THREADS: '1', DOCPARSE_TASK_MAX_MEMORY_MB: '64' });
    const n = await startTestNode(env);
    try {
      const created = await createApp(n.node, { maxDocumentUnitsPerMonth: 100 });
      const token = await getToken(n.url, created.clientId, created.clientSecret);
      const pid = n.node.pool!.pid!;
      const rssBefore = readRssMb(pid)!;
      const r = await fetch(`${n.url}/api/v1/documents/upload?documentId=inflating&fileName=inflating.pdf&pdfMode=SingleColumn`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: await inflatingPdf(150),
      });
      expect(r.status).toBe(202);
      const s = await waitFor(
        async () => {
          const st = (await (await fetch(`${n.url}/api/v1/documents/inflating/status`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
            statusInt: number;
            error?: { code: string; message: string };
          };
          return st.statusInt === 8 || st.statusInt === 9 ? st : null;
        },
        'the job to finish',
        60_000,
      );
      expect(s.statusInt).toBe(9);
      expect(s.error?.code).toBe('document_too_complex');
      expect(s.error?.message).toMatch(/more than the 64 MB one parse may use\.$/);
      expect(await n.node.controlPlane.unitsUsed(created.appId, monthOf(new Date()))).toBe(0);
      // The same parsing process, back to its size once the thread that grew has gone.
      expect(n.node.pool!.pid).toBe(pid);
      const peak = readRssMb(pid)!;
      await waitFor(async () => readRssMb(pid)! - rssBefore < 64, 'the thread that grew to go', 30_000);
      console.info(`inflating PDF over a 64 MB budget: parsing process ${rssBefore} MB before, ${peak} MB as the job failed, ${readRssMb(pid)} MB after`);
    } finally {
      await n.close();
      await destroyTestEnv(env);
    }
  });
});
