// The parsing host's queue for threads takes tenants in turns: a task of tenant B queued behind
// many of tenant A's waits for at most one of A's, not for all of them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { ParseHost } from '../../src/pipeline/parse-host.js';
import type { ParseTask } from '../../src/pipeline/task.js';
import { parserSettings } from '../helpers/parser-settings.js';

let dir: string;
let csv: string;
let host: ParseHost | null = null;

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dp-host-turns-'));
  csv = path.join(dir, 'small.csv');
  await fs.writeFile(csv, 'a,b\n1,2\n3,4\n');
});
afterAll(async () => {
  await host?.close();
  await fs.rm(dir, { recursive: true, force: true });
});

const task = (name: string): ParseTask => ({
  documentId: name,
  fileName: 'small.csv',
  format: 'csv',
  options: { csvRoute: 'Tabular' },
  customMetadata: null,
  inputPath: csv,
  artifactPath: path.join(dir, `${name}.json`),
  tempDir: path.join(dir, name),
});

describe('ParseHost turns', () => {
  it("one thread, six of tenant A's tasks queued, then one of B's: B's runs after at most one more of A's", async () => {
    host = new ParseHost({
      threads: 1,
      taskTimeoutMs: 60_000,
      maxHeapMb: 1024,
      maxProcessRssMb: 16_384,
      parsers: parserSettings(),
      logger: pino({ level: 'silent' }),
    });
    expect(await host.whenReady(60_000)).toBe(true);
    const finished: string[] = [];
    const run = (name: string, tenantId: string) =>
      host!.run(task(name), { tenantId }).then((r) => {
        expect(r.ok).toBe(true);
        finished.push(name);
      });
    const all = [...Array.from({ length: 6 }, (_, i) => run(`a${i}`, 'tenant-a')), run('b0', 'tenant-b')];
    expect(host.stats().queued).toBeGreaterThanOrEqual(6); // a0 has the thread, the rest wait
    await Promise.all(all);
    // a0 had the thread; a1 was first in the round; then B's turn. In arrival order B would be last.
    expect(finished).toEqual(['a0', 'a1', 'b0', 'a2', 'a3', 'a4', 'a5']);
  });
});
