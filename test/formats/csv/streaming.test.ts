// Streaming: a ~200 MB CSV is parsed with heap growth far below the file size. Throughput is
// printed for information only (speed is proven in bench/, never asserted in a unit test).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { once } from 'node:events';
import { runCsv, tempDir } from './helpers.js';

const TARGET_BYTES = 200 * 1024 * 1024;
let dir = '';
let file = '';
let rows = 0;

async function generate(p: string): Promise<number> {
  const out = fs.createWriteStream(p);
  out.write('id,name,price,qty,active,day,lat,lon,comment\n');
  let bytes = 0;
  let i = 0;
  while (bytes < TARGET_BYTES) {
    let s = '';
    for (let k = 0; k < 2000; k++, i++) {
      s +=
        `${i},item ${i % 977},${(i % 10000) / 100},${i % 50},${i % 2 ? 'true' : 'false'},` +
        `2020-0${1 + (i % 9)}-1${i % 10},${(i % 180) - 90 + 0.5},${(i % 360) - 180 + 0.25},"text, with ""quotes"" ${i}"\n`;
    }
    bytes += s.length;
    if (!out.write(s)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return i;
}

describe('streaming a ~200 MB CSV', () => {
  beforeAll(async () => {
    dir = await tempDir();
    file = path.join(dir, 'big.csv');
    rows = await generate(file);
  }, 300_000);

  afterAll(async () => {
    if (dir) await fsp.rm(dir, { recursive: true, force: true });
  });

  it('keeps heap growth well under the file size', async () => {
    const size = (await fsp.stat(file)).size;
    expect(size).toBeGreaterThan(TARGET_BYTES * 0.99);
    globalThis.gc?.();
    const base = process.memoryUsage().heapUsed;
    let peak = 0;
    const timer = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().heapUsed - base);
    }, 10);
    const t0 = performance.now();
    const run = await runCsv(file, 'Tabular', { parseOutput: false });
    const seconds = (performance.now() - t0) / 1000;
    clearInterval(timer);
    peak = Math.max(peak, process.memoryUsage().heapUsed - base);

    expect(run.outcome.metadata.rowCount).toBe(rows);
    expect(run.outcome.metadata.columnCount).toBe(9);
    expect(run.artifactBytes).toBeGreaterThan(size);
    // Generous bound: a non-streaming parser would need several times the file size.
    expect(peak).toBeLessThan(size / 2);
    console.log(
      `[csv streaming] ${(size / 1048576).toFixed(0)} MB, ${rows} rows in ${seconds.toFixed(1)} s ` +
        `(${(size / 1048576 / seconds).toFixed(1)} MB/s, two passes + JSON), peak heap growth ${(peak / 1048576).toFixed(0)} MB`,
    );
  }, 600_000);
});
