// JsonWriter encodes each piece into 64 KiB buffers as it is written: artifacts must come out
// whole and valid whatever the pieces hold — multi-byte characters straddling a buffer's end,
// a value larger than a buffer — with the byte count the job records.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { afterAll, describe, expect, it } from 'vitest';
import { JsonWriter } from '../../../src/formats/kit/json-writer.js';
import { SyncFileStream } from '../../../src/pipeline/sync-file-stream.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'json-writer-test-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Writes `items` as {"items":[…]} through a JsonWriter, flushing as a parser would. */
async function writeItems(items: unknown[]): Promise<{ text: string; bytesWritten: number; size: number }> {
  const file = path.join(dir, `out-${Math.random().toString(36).slice(2)}.json`);
  const out = new SyncFileStream(file);
  const w = new JsonWriter(out);
  w.beginObject().key('items').beginArray();
  for (const item of items) {
    w.value(item);
    await w.maybeFlush();
  }
  w.endArray().endObject();
  await w.finish();
  out.end();
  await once(out, 'finish');
  return { text: fs.readFileSync(file, 'utf8'), bytesWritten: w.bytesWritten, size: fs.statSync(file).size };
}

describe('JsonWriter', () => {
  it('multi-byte text across many buffers comes out whole, with the byte count of the file', async () => {
    // 2-, 3- and 4-byte UTF-8 characters in pieces of odd lengths, so they land on buffer ends.
    const items = Array.from({ length: 3000 }, (_, i) => ({ i, text: `Zürich 東京 🚀 ${'é'.repeat(i % 97)}` }));
    const r = await writeItems(items);
    expect(JSON.parse(r.text)).toEqual({ items });
    expect(r.bytesWritten).toBe(r.size);
    expect(r.size).toBeGreaterThan(3 * 64 * 1024);
  });

  it('a value larger than a buffer keeps its place between smaller ones', async () => {
    const big = { text: '段'.repeat(100_000) }; // 300,000 bytes of UTF-8
    const items = ['before', big, 'after', { n: 1 }];
    const r = await writeItems(items);
    expect(JSON.parse(r.text)).toEqual({ items });
    expect(r.bytesWritten).toBe(r.size);
  });
});
