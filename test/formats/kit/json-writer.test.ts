// JsonWriter encodes each piece into 64 KiB buffers as it is written: artifacts must come out
// whole and valid whatever the pieces hold — multi-byte characters straddling a buffer's end,
// a value larger than a buffer, a long string escaped slice by slice — with the byte count the
// job records.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { afterAll, describe, expect, it } from 'vitest';
import { JsonWriter } from '../../../src/formats/kit/json-writer.js';
import { SyncFileStream } from '../../../src/pipeline/sync-file-stream.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'json-writer-test-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The file `write` makes through a JsonWriter, and the byte count the writer gives. */
async function writeWith(write: (w: JsonWriter) => Promise<void>): Promise<{ text: string; bytesWritten: number; size: number }> {
  const file = path.join(dir, `out-${Math.random().toString(36).slice(2)}.json`);
  const out = new SyncFileStream(file);
  const w = new JsonWriter(out);
  await write(w);
  await w.finish();
  out.end();
  await once(out, 'finish');
  return { text: fs.readFileSync(file, 'utf8'), bytesWritten: w.bytesWritten, size: fs.statSync(file).size };
}

/** Writes `items` as {"items":[…]} through a JsonWriter, flushing as a parser would. */
function writeItems(items: unknown[]): ReturnType<typeof writeWith> {
  return writeWith(async (w) => {
    w.beginObject().key('items').beginArray();
    for (const item of items) {
      w.value(item);
      await w.maybeFlush();
    }
    w.endArray().endObject();
  });
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

  it('a long string written in slices is the JSON of the whole string, whatever straddles a slice boundary', async () => {
    // Quote, backslash, newline, tab, NUL and 0x1f (escaped), a surrogate pair, lone surrogates
    // (escaped as \uXXXX), 2- and 3-byte characters: each lands on every slice boundary for
    // some shift, whatever the slice length.
    const pattern = '"\\\n\t\u0000\u001f😀\ud800x\udc00é東';
    for (let shift = 0; shift <= pattern.length; shift++) {
      const long = 'a'.repeat(shift) + pattern.repeat(Math.ceil(100_000 / pattern.length));
      const r = await writeWith(async (w) => {
        w.beginObject().field('before', 1).key('text').string(long).key('list').beginArray().string('short').string(long).endArray().endObject();
        await w.maybeFlush();
      });
      // Byte for byte what JSON.stringify gives for the whole object.
      expect(r.text === JSON.stringify({ before: 1, text: long, list: ['short', long] }), `shift ${shift}`).toBe(true);
      expect(r.bytesWritten).toBe(r.size);
    }
  });

  it('an empty string and a string of one escaped character', async () => {
    const r = await writeWith(async (w) => {
      w.beginArray().string('').string('"').string('\u2028').endArray();
    });
    expect(r.text).toBe(JSON.stringify(['', '"', '\u2028']));
  });
});
