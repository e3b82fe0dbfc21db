// The OLE2 container guard (src/formats/ole2-guard.ts): compound files whose sector chains or
// directory links loop, or point outside the file, fail fast as corrupt_document instead of
// sending cfb or msgreader into an endless walk that kills the process. Files are built with
// cfb and then damaged at one precise spot; the corpus crashers are checked when present.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import CFB from 'cfb';
import MsgReaderModule from '@kenjiuno/msgreader';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertSoundOle2, assertSoundOle2File } from '../../src/formats/ole2-guard.js';
import { parseMsg } from '../../src/formats/email/index.js';
import { parseOffice } from '../../src/formats/office/index.js';
import { ExtractionError } from '../../src/formats/kit/types.js';
import { CORPUS_ROOT, parseFileWith } from '../helpers/parse.js';

const CORPUS = CORPUS_ROOT;
const hasCorpus = fs.existsSync(path.join(CORPUS, 'office')) && fs.existsSync(path.join(CORPUS, 'email'));
const MsgReader = ((MsgReaderModule as unknown as { default?: unknown }).default ?? MsgReaderModule) as new (buf: Buffer) => {
  getFileData(): { error?: string };
};

/** A damaged container must be refused this fast (the unguarded readers run for ~10 s, then abort the process). */
const FAST_MS = 500;
const DAMAGED = /^The file's OLE2 compound-document container is damaged: .+\.$/;

/** Runs the guard on bytes and returns its verdict: null when accepted, else the error. */
async function verdict(bytes: Buffer): Promise<ExtractionError | null> {
  try {
    await assertSoundOle2(bytes);
    return null;
  } catch (e) {
    if (!(e instanceof ExtractionError)) throw e;
    return e;
  }
}

/** Expects a fast corrupt_document refusal whose message matches `detail`. */
async function expectRefused(bytes: Buffer, detail: RegExp): Promise<void> {
  const t0 = performance.now();
  const e = await verdict(bytes);
  const ms = performance.now() - t0;
  expect(e, 'the damaged file was accepted').not.toBeNull();
  expect(e!.code).toBe('corrupt_document');
  expect(e!.message).toMatch(DAMAGED);
  expect(e!.message).toMatch(detail);
  expect(ms).toBeLessThan(FAST_MS);
}

function buildCfb(streams: Record<string, Buffer>): Buffer {
  const cfb = CFB.utils.cfb_new();
  for (const [name, content] of Object.entries(streams)) CFB.utils.cfb_add(cfb, name, content);
  return CFB.write(cfb, { type: 'buffer' }) as Buffer;
}

const SIGNATURE = Buffer.from('d0cf11e0a1b11ae1', 'hex');
const NOT_A_SECTOR = 0xfffffffa;
const END_OF_CHAIN = 0xfffffffe;
const FREE_SECTOR = 0xffffffff;
const NO_ENTRY = 0xffffffff;

/** Reads and patches the structures of a compound file whose FAT sectors are all listed in the header. */
class Ole2Patch {
  readonly bytes: Buffer;
  readonly sectorSize: number;
  constructor(original: Buffer) {
    this.bytes = Buffer.from(original);
    this.sectorSize = 1 << this.bytes.readUInt16LE(30);
  }
  sectorOffset(sector: number): number {
    return (sector + 1) * this.sectorSize;
  }
  private fatEntryOffset(sector: number): number {
    const perSector = this.sectorSize / 4;
    const fatSector = this.bytes.readUInt32LE(76 + 4 * Math.floor(sector / perSector));
    return this.sectorOffset(fatSector) + (sector % perSector) * 4;
  }
  setNext(sector: number, value: number): this {
    this.bytes.writeUInt32LE(value, this.fatEntryOffset(sector));
    return this;
  }
  chain(start: number): number[] {
    const out: number[] = [];
    for (let s = start; s < NOT_A_SECTOR; s = this.bytes.readUInt32LE(this.fatEntryOffset(s))) out.push(s);
    return out;
  }
  get directorySectors(): number[] {
    return this.chain(this.bytes.readUInt32LE(48));
  }
  get miniFatSectors(): number[] {
    return this.chain(this.bytes.readUInt32LE(60));
  }
  private entryOffset(i: number): number {
    const perSector = this.sectorSize / 128;
    return this.sectorOffset(this.directorySectors[Math.floor(i / perSector)]) + (i % perSector) * 128;
  }
  /** Index of the directory entry with this name. */
  entry(name: string): number {
    for (let i = 0; i < this.directorySectors.length * (this.sectorSize / 128); i++) {
      const at = this.entryOffset(i);
      const len = this.bytes.readUInt16LE(at + 64);
      if (len >= 2 && this.bytes.subarray(at, at + len - 2).toString('utf16le') === name) return i;
    }
    throw new Error(`no entry ${name}`);
  }
  field(i: number, f: 'left' | 'right' | 'child' | 'start' | 'size'): number {
    return this.bytes.readUInt32LE(this.entryOffset(i) + FIELD[f]);
  }
  setField(i: number, f: 'left' | 'right' | 'child' | 'start' | 'size', value: number): this {
    this.bytes.writeUInt32LE(value, this.entryOffset(i) + FIELD[f]);
    return this;
  }
  private miniFatEntryOffset(miniSector: number): number {
    const perSector = this.sectorSize / 4;
    return this.sectorOffset(this.miniFatSectors[Math.floor(miniSector / perSector)]) + (miniSector % perSector) * 4;
  }
  setMiniNext(miniSector: number, value: number): this {
    this.bytes.writeUInt32LE(value, this.miniFatEntryOffset(miniSector));
    return this;
  }
  miniChain(start: number): number[] {
    const out: number[] = [];
    for (let s = start; s < NOT_A_SECTOR; s = this.bytes.readUInt32LE(this.miniFatEntryOffset(s))) out.push(s);
    return out;
  }
  streamChain(name: string): number[] {
    return this.chain(this.field(this.entry(name), 'start'));
  }
  miniStreamChain(name: string): number[] {
    return this.miniChain(this.field(this.entry(name), 'start'));
  }
}
const FIELD = { left: 68, right: 72, child: 76, start: 116, size: 120 } as const;

/**
 * A version-4 file (4096-byte sectors; cfb writes version 3 only): header, FAT in sector 0,
 * directory in sector 1, and one 4096-byte stream "Data" in sector 2.
 */
function buildVersion4(): Buffer {
  const size = 4096;
  const b = Buffer.alloc(size * 4);
  SIGNATURE.copy(b);
  b.writeUInt16LE(0x3e, 24);
  b.writeUInt16LE(4, 26);
  b.writeUInt16LE(0xfffe, 28);
  b.writeUInt16LE(12, 30);
  b.writeUInt16LE(6, 32);
  b.writeUInt32LE(1, 40); // directory sectors
  b.writeUInt32LE(1, 44); // FAT sectors
  b.writeUInt32LE(1, 48); // first directory sector
  b.writeUInt32LE(4096, 56);
  b.writeUInt32LE(END_OF_CHAIN, 60);
  b.writeUInt32LE(END_OF_CHAIN, 68);
  for (let i = 0; i < 109; i++) b.writeUInt32LE(i === 0 ? 0 : FREE_SECTOR, 76 + 4 * i);
  const fat = size;
  for (let i = 0; i < size / 4; i++) b.writeUInt32LE(FREE_SECTOR, fat + 4 * i);
  b.writeUInt32LE(0xfffffffd, fat); // sector 0 is the FAT
  b.writeUInt32LE(END_OF_CHAIN, fat + 4); // the directory
  b.writeUInt32LE(END_OF_CHAIN, fat + 8); // "Data"
  for (let i = 0; i < size / 128; i++) {
    const at = 2 * size + 128 * i;
    for (const link of [68, 72, 76]) b.writeUInt32LE(NO_ENTRY, at + link);
  }
  const entry = (i: number, name: string, type: number, child: number, start: number, bytes: number): void => {
    const at = 2 * size + 128 * i;
    b.write(name, at, 'utf16le');
    b.writeUInt16LE((name.length + 1) * 2, at + 64);
    b[at + 66] = type;
    b[at + 67] = 1;
    b.writeUInt32LE(child, at + 76);
    b.writeUInt32LE(start, at + 116);
    b.writeUInt32LE(bytes, at + 120);
  };
  entry(0, 'Root Entry', 5, 1, END_OF_CHAIN, 0);
  entry(1, 'Data', 2, NO_ENTRY, 2, 4096);
  b.fill(0x41, 3 * size);
  return b;
}

/** A file with FAT streams, mini streams (over two mini-FAT sectors) and a three-sector directory. */
const sample = buildCfb({
  Big: Buffer.alloc(10_000, 1),
  Small: Buffer.alloc(300, 2),
  Mid0: Buffer.alloc(3000, 3),
  Mid1: Buffer.alloc(3000, 4),
  Mid2: Buffer.alloc(3000, 5),
  S0: Buffer.alloc(100, 6),
  S1: Buffer.alloc(100, 7),
});

describe('OLE2 guard: valid compound files pass', () => {
  it('the generated sample has the structures the damage tests rely on, and passes', async () => {
    const p = new Ole2Patch(sample);
    expect(p.directorySectors.length).toBeGreaterThan(1);
    expect(p.miniFatSectors.length).toBe(2);
    expect(p.streamChain('Big').length).toBe(20);
    expect(p.miniStreamChain('Small').length).toBe(5);
    expect(await verdict(sample)).toBeNull();
    expect(CFB.find(CFB.read(sample, { type: 'buffer' }), 'Big')?.size).toBe(10_000);
  });

  it('an empty container passes', async () => {
    expect(await verdict(buildCfb({}))).toBeNull();
  });

  it('a version-4 file (4096-byte sectors) passes, and a loop in it is caught', async () => {
    const v4 = buildVersion4();
    expect(CFB.find(CFB.read(v4, { type: 'buffer' }), 'Data')?.size).toBe(4096);
    expect(await verdict(v4)).toBeNull();
    v4.writeUInt32LE(2, 4096 + 8); // "Data" (sector 2) now continues into itself
    await expectRefused(v4, /chain for the stream in directory entry 1 \("Data"\) loops back on itself at sector 2\.$/);
  });

  it('a file over 109 FAT sectors (FAT listed through the DIFAT chain) passes', async () => {
    const big = buildCfb({ Huge: Buffer.alloc(16.5 * 1024 * 1024, 7) });
    expect(big.readUInt32LE(72)).toBe(2); // two DIFAT sectors
    expect(await verdict(big)).toBeNull();
  });

  it('a chain longer than its stream (a common writer slip) still passes', async () => {
    const p = new Ole2Patch(sample);
    const big = p.entry('Big');
    p.setField(big, 'size', 4100); // needs 9 sectors; the chain keeps its 20
    expect(await verdict(p.bytes)).toBeNull();
  });

  it('the file entry point reads the file and gives the same verdicts', async () => {
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'ole2-guard-'));
    try {
      const good = path.join(dir, 'good.doc');
      await fsp.writeFile(good, sample);
      await expect(assertSoundOle2File(good)).resolves.toBeUndefined();
      const bad = path.join(dir, 'bad.doc');
      const p = new Ole2Patch(sample);
      const dirSectors = p.directorySectors;
      await fsp.writeFile(bad, p.setNext(dirSectors.at(-1)!, dirSectors[0]).bytes);
      await expect(assertSoundOle2File(bad)).rejects.toMatchObject({
        code: 'corrupt_document',
        message: expect.stringMatching(/chain for the directory loops/),
      });
    } finally {
      await fsp.rm(dir, { recursive: true, force: true });
    }
  });
});

describe('OLE2 guard: damaged compound files fail fast as corrupt_document', () => {
  it("a stream's FAT chain that loops", async () => {
    const p = new Ole2Patch(sample);
    const chain = p.streamChain('Big');
    p.setNext(chain[15], chain[3]);
    await expectRefused(
      p.bytes,
      new RegExp(
        `its sector allocation table \\(FAT\\) chain for the stream in directory entry \\d+ \\("Big"\\) loops back on itself at sector ${chain[3]}\\.$`,
      ),
    );
  });

  it('the directory chain that loops', async () => {
    const p = new Ole2Patch(sample);
    const dir = p.directorySectors;
    p.setNext(dir.at(-1)!, dir[0]);
    await expectRefused(p.bytes, new RegExp(`chain for the directory loops back on itself at sector ${dir[0]}\\.$`));
  });

  it("a small stream's mini-FAT chain that loops", async () => {
    const p = new Ole2Patch(sample);
    const mini = p.miniStreamChain('Small');
    p.setMiniNext(mini[4], mini[1]);
    await expectRefused(
      p.bytes,
      new RegExp(`its mini-FAT chain for the stream in directory entry \\d+ \\("Small"\\) loops back on itself at mini sector ${mini[1]}\\.$`),
    );
  });

  it("the mini-FAT's own sector chain that loops", async () => {
    const p = new Ole2Patch(sample);
    const sectors = p.miniFatSectors;
    p.setNext(sectors[1], sectors[0]);
    await expectRefused(p.bytes, new RegExp(`chain for the mini-FAT loops back on itself at sector ${sectors[0]}\\.$`));
  });

  it("the mini stream's chain (root entry) that loops", async () => {
    const p = new Ole2Patch(sample);
    const chain = p.chain(p.field(0, 'start'));
    expect(chain.length).toBeGreaterThan(1);
    p.setNext(chain.at(-1)!, chain[0]);
    await expectRefused(p.bytes, new RegExp(`chain for the mini stream loops back on itself at sector ${chain[0]}\\.$`));
  });

  it('a DIFAT chain that loops, and one that leaves the file', async () => {
    const big = buildCfb({ Huge: Buffer.alloc(16.5 * 1024 * 1024, 7) });
    const firstDifat = big.readUInt32LE(68);
    const nextAt = (firstDifat + 2) * 512 - 4; // last entry of the first DIFAT sector
    const looping = Buffer.from(big);
    looping.writeUInt32LE(firstDifat, nextAt);
    await expectRefused(looping, new RegExp(`its DIFAT chain \\(the list of FAT sectors\\) loops back on itself at sector ${firstDifat}\\.$`));
    const outside = Buffer.from(big);
    outside.writeUInt32LE(5_000_000, nextAt);
    await expectRefused(outside, /its DIFAT chain \(the list of FAT sectors\) points to sector 5000000, past the file's last sector \(\d+\)\.$/);
  });

  it('a chain pointing past the end of the file or of the mini stream', async () => {
    const p = new Ole2Patch(sample);
    const lastSector = sample.length / 512 - 2;
    p.setNext(p.streamChain('Big')[1], 999_999);
    await expectRefused(
      p.bytes,
      new RegExp(`chain for the stream in directory entry \\d+ \\("Big"\\) points to sector 999999, past the file's last sector \\(${lastSector}\\)\\.$`),
    );
    const q = new Ole2Patch(sample);
    q.setMiniNext(q.miniStreamChain('Mid1')[0], 70_000);
    await expectRefused(
      q.bytes,
      /its mini-FAT chain for the stream in directory entry \d+ \("Mid1"\) points to mini sector 70000, past the end of the mini stream \(\d+ mini sectors\)\.$/,
    );
  });

  it('a stream declaring more bytes than the whole file holds', async () => {
    const p = new Ole2Patch(sample);
    p.setField(p.entry('Big'), 'size', 50_000_000);
    await expectRefused(
      p.bytes,
      /the stream in directory entry \d+ \("Big"\) declares 50000000 bytes, more than the file's sectors \(\d+ bytes\) could hold\.$/,
    );
  });

  it('a directory tree that loops, reaches an entry twice, or links outside the directory', async () => {
    // cfb chains the root's children through their right links: root → c0 → c1 → c2 …
    const children = (p: Ole2Patch): number[] => {
      const out = [p.field(0, 'child')];
      while (p.field(out.at(-1)!, 'right') !== NO_ENTRY) out.push(p.field(out.at(-1)!, 'right'));
      return out;
    };
    const looping = new Ole2Patch(sample);
    const c = children(looping);
    expect(c.length).toBeGreaterThan(3);
    looping.setField(c.at(-1)!, 'right', c[0]);
    await expectRefused(looping.bytes, new RegExp(`its directory tree loops back on itself at entry ${c[0]} \\(".+"\\)\\.$`));

    const shared = new Ole2Patch(sample);
    shared.setField(c[0], 'left', c[2]);
    await expectRefused(shared.bytes, new RegExp(`its directory tree reaches entry ${c[2]} \\(".+"\\) from two places\\.$`));

    const outside = new Ole2Patch(sample);
    const s0 = outside.entry('S0');
    outside.setField(s0, 'left', 4000);
    await expectRefused(outside.bytes, new RegExp(`its directory entry ${s0} \\("S0"\\) links to entry 4000, but the directory holds \\d+ entries\\.$`));
  });

  it('a bad header: wrong signature, sector shift, mini sector shift, short file', async () => {
    const sig = Buffer.from(sample);
    sig[7] = 0;
    await expectRefused(sig, /its header does not start with the OLE2 signature\.$/);
    const shift = Buffer.from(sample);
    shift.writeUInt16LE(10, 30);
    await expectRefused(shift, /its header gives version 3 with sector shift 10/);
    const mini = Buffer.from(sample);
    mini.writeUInt16LE(7, 32);
    await expectRefused(mini, /mini sector shift 7 \(must be 6\)\.$/);
    await expectRefused(sample.subarray(0, 300), /the file is 300 bytes, shorter than the 512-byte header\.$/);
  });

  it('a chain running through sectors the FAT does not describe (its FAT sector missing)', async () => {
    const p = new Ole2Patch(sample);
    const firstDir = p.directorySectors[0];
    p.bytes.writeUInt32LE(FREE_SECTOR, 76); // the only FAT sector, unlisted
    await expectRefused(
      p.bytes,
      new RegExp(`its sector allocation table \\(FAT\\) has no entry for sector ${firstDir}, which the chain for the directory runs through\\.$`),
    );
  });
});

describe('OLE2 guard through the parsers: the job fails as corrupt_document', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'ole2-guard-parse-'));
  });
  afterAll(async () => {
    await fsp.rm(dir, { recursive: true, force: true });
  });

  it('a .doc whose WordDocument chain loops', async () => {
    const p = new Ole2Patch(buildCfb({ WordDocument: Buffer.alloc(6000, 0x41), '\u0005SummaryInformation': Buffer.alloc(200) }));
    const chain = p.streamChain('WordDocument');
    p.setNext(chain.at(-1)!, chain[0]);
    const file = path.join(dir, 'looping.doc');
    await fsp.writeFile(file, p.bytes);
    const r = await parseFileWith(parseOffice, file, 'doc');
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.code).toBe('corrupt_document');
      expect(r.message).toMatch(/container is damaged: .*"WordDocument".* loops back on itself/);
    }
  });

  it('a .msg whose mini-FAT chain loops', async () => {
    const subject = Buffer.from('A subject long enough to take several mini sectors of the mini stream', 'utf16le');
    const p = new Ole2Patch(buildCfb({ '__properties_version1.0': Buffer.alloc(32), '__substg1.0_0037001F': subject }));
    const mini = p.miniStreamChain('__substg1.0_0037001F');
    p.setMiniNext(mini.at(-1)!, mini[0]);
    const file = path.join(dir, 'looping.msg');
    await fsp.writeFile(file, p.bytes);
    const r = await parseFileWith(parseMsg, file, 'msg');
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.code).toBe('corrupt_document');
      expect(r.message).toMatch(/container is damaged: its mini-FAT chain .* loops back on itself at mini sector/);
    }
  });
});

function startsLikeOle2(file: string): boolean {
  const fd = fs.openSync(file, 'r');
  try {
    const head = Buffer.alloc(8);
    return fs.readSync(fd, head, 0, 8, 0) === 8 && head.equals(SIGNATURE);
  } finally {
    fs.closeSync(fd);
  }
}

describe.skipIf(!hasCorpus)('OLE2 guard on the corpus', () => {
  const crasher = (name: string) => path.join(CORPUS, 'crashers', name);

  it('the two crashers are refused in milliseconds', async () => {
    await expectRefused(fs.readFileSync(crasher('cyclic-fat.doc')), /chain for the directory loops back on itself at sector 0\.$/);
    await expectRefused(
      fs.readFileSync(crasher('cyclic-minifat.msg')),
      /its mini-FAT chain for the stream in directory entry \d+ \("__properties_version1\.0"\) loops back on itself at mini sector \d+\.$/,
    );
  });

  it('cyclic-fat.doc through the office parser: corrupt_document, not a dead process', async () => {
    const t0 = performance.now();
    const r = await parseFileWith(parseOffice, crasher('cyclic-fat.doc'), 'doc');
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.code).toBe('corrupt_document');
      expect(r.message).toMatch(DAMAGED);
    }
    expect(performance.now() - t0).toBeLessThan(5000);
  });

  it('cyclic-minifat.msg through the email parser: corrupt_document, not a dead process', async () => {
    const t0 = performance.now();
    const r = await parseFileWith(parseMsg, crasher('cyclic-minifat.msg'), 'msg');
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.code).toBe('corrupt_document');
      expect(r.message).toMatch(DAMAGED);
    }
    expect(performance.now() - t0).toBeLessThan(5000);
  });

  it('accepts every OLE2 file of the office and email corpus that cfb or msgreader opens', async () => {
    const files = ['office', 'email']
      .flatMap((family) => fs.readdirSync(path.join(CORPUS, family)).map((f) => path.join(CORPUS, family, f)))
      .filter(startsLikeOle2);
    expect(files.length).toBeGreaterThan(40);
    const wronglyRefused: string[] = [];
    for (const file of files) {
      const bytes = fs.readFileSync(file);
      let readable = true;
      try {
        if (file.endsWith('.msg')) readable = !new MsgReader(bytes).getFileData().error;
        else CFB.read(bytes, { type: 'buffer' });
      } catch {
        readable = false;
      }
      const v = await verdict(bytes);
      if (readable && v) wronglyRefused.push(`${path.basename(file)}: ${v.message}`);
    }
    expect(wronglyRefused).toEqual([]);
  });
});
