// SyncFileStream: what the artifact writer relies on — every byte written in order through the
// stream API (single and corked writes), the file closed at the end or on destroy, an
// unopenable path refused at construction.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { afterAll, describe, expect, it } from 'vitest';
import { SyncFileStream } from '../../src/pipeline/sync-file-stream.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sync-stream-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const openFds = () => fs.readdirSync('/proc/self/fd').length;

describe('SyncFileStream', () => {
  it('writes every chunk in order and closes its file at the end', async () => {
    const before = openFds();
    const file = path.join(dir, 'a.json');
    const s = new SyncFileStream(file, { highWaterMark: 1024 });
    expect(openFds()).toBe(before + 1);
    const parts: string[] = [];
    for (let i = 0; i < 2000; i++) {
      const part = `{"i":${i},"s":"${'ü'.repeat(i % 50)}"},`;
      parts.push(part);
      s.write(part);
    }
    s.end();
    await once(s, 'finish');
    expect(fs.readFileSync(file, 'utf8')).toBe(parts.join(''));
    expect(openFds()).toBe(before);
  });

  it('corked writes arrive together (writev) in order', async () => {
    const file = path.join(dir, 'v.json');
    const s = new SyncFileStream(file);
    s.cork();
    for (let i = 0; i < 100; i++) s.write(`${i},`);
    s.uncork();
    s.end('end');
    await once(s, 'finish');
    expect(fs.readFileSync(file, 'utf8')).toBe(`${Array.from({ length: 100 }, (_, i) => `${i},`).join('')}end`);
  });

  it('truncates an existing file', async () => {
    const file = path.join(dir, 'b.json');
    fs.writeFileSync(file, 'x'.repeat(10_000));
    const s = new SyncFileStream(file);
    s.end('short');
    await once(s, 'finish');
    expect(fs.readFileSync(file, 'utf8')).toBe('short');
  });

  it('refuses a path that cannot be created, at construction', () => {
    expect(() => new SyncFileStream(path.join(dir, 'missing', 'c.json'))).toThrow(/ENOENT/);
  });

  it('destroy closes the file', async () => {
    const before = openFds();
    const s = new SyncFileStream(path.join(dir, 'd.json'));
    s.write('partial');
    s.destroy();
    await once(s, 'close');
    expect(openFds()).toBe(before);
    expect(s.destroyed).toBe(true);
  });
});
