// Structural check of an OLE2 compound file ([MS-CFB]: .doc/.xls/.ppt, encrypted OOXML,
// Outlook .msg) before `cfb` or `@kenjiuno/msgreader` reads it. Both libraries follow sector
// chains and directory links without loop checks, so one looping pointer in a damaged file
// makes them allocate until V8 aborts the whole process. This module walks every chain and
// link those readers will follow — DIFAT, FAT, directory, mini-FAT, mini stream, each
// entry's stream, the directory tree — and throws `corrupt_document` on the first loop or
// impossible pointer. It is deliberately tolerant of what real writers get wrong but the
// readers cope with (chains longer than the stream, chains ending on a free-sector marker,
// header counts that disagree with the chains).
//
// Memory and time: only the header, DIFAT, FAT, directory and mini-FAT sectors are read —
// never stream data — through positioned reads (one per run of consecutive sectors), so a
// large file is not loaded to be checked. The guard holds the FAT plus two work arrays of
// the same length (12 bytes per sector, about 2% of the file) and the directory; every
// chain step is visited at most once per walk, and shared chain tails only once in all.
// Callers that already hold the bytes (msgreader needs them in memory anyway) pass them in.
import { open } from 'node:fs/promises';
import { printable } from './kit/reasons.js';
import { ExtractionError } from './kit/types.js';

const SIGNATURE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
/** Largest real sector number; the values above it are markers (DIFSECT, FATSECT, ENDOFCHAIN, FREESECT). */
const MAX_REGULAR_SECTOR = 0xfffffffa;
const END_OF_CHAIN = 0xfffffffe;
const NO_ENTRY = 0xffffffff;
const HEADER_DIFAT_ENTRIES = 109;
const MINI_SECTOR_SIZE = 64;
const MINI_STREAM_CUTOFF = 4096;
const DIR_ENTRY_SIZE = 128;
const ENTRY_STORAGE = 1;
const ENTRY_STREAM = 2;
const ENTRY_ROOT = 5;

/** Positioned reads over a file or over bytes in memory (a short result at the end of the data). */
interface ByteSource {
  size: number;
  read(offset: number, length: number): Promise<Buffer>;
}

function damaged(detail: string): ExtractionError {
  return new ExtractionError(`The file's OLE2 compound-document container is damaged: ${detail}.`, 'corrupt_document');
}

/** Throws `corrupt_document` unless the OLE2 file at `filePath` is safe to hand to cfb or msgreader. */
export async function assertSoundOle2File(filePath: string): Promise<void> {
  const fh = await open(filePath, 'r');
  try {
    const { size } = await fh.stat();
    await checkContainer({
      size,
      async read(offset, length) {
        const buf = Buffer.alloc(Math.max(0, Math.min(length, size - offset)));
        const { bytesRead } = await fh.read(buf, 0, buf.length, offset);
        return buf.subarray(0, bytesRead);
      },
    });
  } finally {
    await fh.close();
  }
}

/** The same check on bytes already in memory (no copy of the stream data is made). */
export async function assertSoundOle2(bytes: Uint8Array): Promise<void> {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  await checkContainer({ size: buf.length, read: async (offset, length) => buf.subarray(offset, offset + length) });
}

interface Header {
  sectorSize: number;
  /** Sectors after the header, the last one possibly short (as the readers count them). */
  sectorCount: number;
  fatSectorCount: number;
  firstDirectorySector: number;
  firstMiniFatSector: number;
  miniFatSectorCount: number;
  firstDifatSector: number;
  difatSectorCount: number;
  headerDifat: Uint32Array;
}

function readHeader(h: Buffer, fileSize: number): Header {
  if (h.length < 512) throw damaged(`the file is ${fileSize} bytes, shorter than the 512-byte header`);
  if (!h.subarray(0, 8).equals(SIGNATURE)) throw damaged('its header does not start with the OLE2 signature');
  const majorVersion = h.readUInt16LE(26);
  const sectorShift = h.readUInt16LE(30);
  if (!((majorVersion === 3 && sectorShift === 9) || (majorVersion === 4 && sectorShift === 12))) {
    throw damaged(`its header gives version ${majorVersion} with sector shift ${sectorShift} (only version 3 with 9, or 4 with 12, exist)`);
  }
  const miniSectorShift = h.readUInt16LE(32);
  if (miniSectorShift !== 6) throw damaged(`its header gives mini sector shift ${miniSectorShift} (must be 6)`);
  const cutoff = h.readUInt32LE(56);
  if (cutoff !== MINI_STREAM_CUTOFF) throw damaged(`its header gives a mini stream cutoff of ${cutoff} bytes (must be ${MINI_STREAM_CUTOFF})`);
  const sectorSize = 1 << sectorShift;
  const sectorCount = Math.max(0, Math.ceil(fileSize / sectorSize) - 1);
  const fatSectorCount = h.readUInt32LE(44);
  if (fatSectorCount === 0 || fatSectorCount > sectorCount) {
    throw damaged(`its header declares ${fatSectorCount} FAT sectors, but the file holds ${sectorCount} sectors`);
  }
  const headerDifat = new Uint32Array(HEADER_DIFAT_ENTRIES);
  for (let i = 0; i < HEADER_DIFAT_ENTRIES; i++) headerDifat[i] = h.readUInt32LE(76 + i * 4);
  return {
    sectorSize,
    sectorCount,
    fatSectorCount,
    firstDirectorySector: h.readUInt32LE(48),
    firstMiniFatSector: h.readUInt32LE(60),
    miniFatSectorCount: h.readUInt32LE(64),
    firstDifatSector: h.readUInt32LE(68),
    difatSectorCount: h.readUInt32LE(72),
    headerDifat,
  };
}

/** Reads the listed sectors in order, one read per run of consecutive sector numbers. */
async function readSectors(src: ByteSource, hd: Header, sectors: number[]): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for (let i = 0; i < sectors.length;) {
    let run = 1;
    while (i + run < sectors.length && sectors[i + run] === sectors[i] + run) run++;
    const bytes = await src.read((sectors[i] + 1) * hd.sectorSize, run * hd.sectorSize);
    for (let k = 0; k < run; k++) out.push(bytes.subarray(k * hd.sectorSize, (k + 1) * hd.sectorSize));
    i += run;
  }
  return out;
}

/**
 * The FAT sector numbers that cover the file's sectors: the header's 109, then the DIFAT
 * chain. Sectors past the FAT's reach stay unlisted (the readers treat them as ends of chains).
 */
async function fatSectorList(src: ByteSource, hd: Header): Promise<number[]> {
  const entriesPerSector = hd.sectorSize / 4;
  const wanted = Math.min(hd.fatSectorCount, Math.ceil(hd.sectorCount / entriesPerSector));
  const list = Array.from(hd.headerDifat.subarray(0, Math.min(wanted, HEADER_DIFAT_ENTRIES)));
  const seen = new Set<number>();
  let next = hd.firstDifatSector;
  for (let step = 0; list.length < wanted && step < hd.difatSectorCount && next <= MAX_REGULAR_SECTOR; step++) {
    if (next >= hd.sectorCount)
      throw damaged(`its DIFAT chain (the list of FAT sectors) points to sector ${next}, past the file's last sector (${hd.sectorCount - 1})`);
    if (seen.has(next)) throw damaged(`its DIFAT chain (the list of FAT sectors) loops back on itself at sector ${next}`);
    seen.add(next);
    const [sector] = await readSectors(src, hd, [next]);
    const entries = Math.min(entriesPerSector - 1, Math.floor(sector.length / 4));
    for (let i = 0; i < entries && list.length < wanted; i++) list.push(sector.readUInt32LE(i * 4));
    next = sector.length === hd.sectorSize ? sector.readUInt32LE(hd.sectorSize - 4) : END_OF_CHAIN;
  }
  return list;
}

/** An allocation table: each sector's successor, and whether the table describes that sector at all. */
interface Table {
  next: Uint32Array;
  describes(sector: number): boolean;
}

/**
 * The FAT for every sector of the file. Where a FAT sector is missing (not listed, or a
 * free marker in the list) its sectors are undescribed: cfb then ends the chain there, but
 * msgreader reads the header bytes as their successors, so a chain must not run through them.
 */
async function loadFat(src: ByteSource, hd: Header): Promise<Table> {
  const next = new Uint32Array(hd.sectorCount).fill(END_OF_CHAIN);
  const entriesPerSector = hd.sectorSize / 4;
  const list = await fatSectorList(src, hd);
  list.forEach((s, k) => {
    if (s <= MAX_REGULAR_SECTOR && s >= hd.sectorCount)
      throw damaged(`its FAT sector #${k} is sector ${s}, past the file's last sector (${hd.sectorCount - 1})`);
  });
  const present = list.map((s, k) => ({ s, k })).filter(({ s }) => s <= MAX_REGULAR_SECTOR);
  const sectors = await readSectors(
    src,
    hd,
    present.map(({ s }) => s),
  );
  const described = new Uint8Array(list.length);
  present.forEach(({ k }, i) => {
    const sector = sectors[i];
    const base = k * entriesPerSector;
    const n = Math.min(entriesPerSector, Math.floor(sector.length / 4), hd.sectorCount - base);
    for (let j = 0; j < n; j++) next[base + j] = sector.readUInt32LE(j * 4);
    described[k] = 1;
  });
  return { next, describes: (sector) => described[Math.floor(sector / entriesPerSector)] === 1 };
}

/**
 * Follows chains in one allocation table (the FAT, or the mini-FAT over the mini stream).
 * A chain ends at any marker value, as both readers end it. Lengths of chains already
 * checked are remembered per sector, so chains sharing a tail cost nothing twice.
 */
class ChainWalker {
  private readonly next: Uint32Array;
  /** Which walk last visited each sector: a second visit within one walk is a loop. */
  private readonly stamp: Uint32Array;
  /** Length of the checked chain from each sector to its end; 0 while unknown. */
  private readonly tailLength: Uint32Array;
  private walk = 0;

  constructor(
    private readonly table: Table,
    /** e.g. "sector allocation table (FAT)" */
    private readonly tableName: string,
    private readonly unit: 'sector' | 'mini sector',
    private readonly rangeNote: string,
  ) {
    this.next = table.next;
    this.stamp = new Uint32Array(this.next.length);
    this.tailLength = new Uint32Array(this.next.length);
  }

  /**
   * Length in sectors of the chain from `start`, for `owner` (e.g. "the directory"). Throws
   * on a loop; also on a sector past the table's end or one the table does not describe,
   * unless `pastEnd` is 'stop' (then the chain ends there, as cfb ends it).
   */
  length(start: number, owner: string, pastEnd: 'fail' | 'stop' = 'fail'): number {
    if (start > MAX_REGULAR_SECTOR) return 0;
    this.walk++;
    const path: number[] = [];
    let sector = start;
    let total: number;
    for (;;) {
      if (sector >= this.next.length) {
        if (pastEnd === 'stop') return path.length;
        throw damaged(`its ${this.tableName} chain for ${owner} points to ${this.unit} ${sector}, past ${this.rangeNote}`);
      }
      if (this.tailLength[sector]) {
        total = path.length + this.tailLength[sector];
        break;
      }
      if (this.stamp[sector] === this.walk) throw damaged(`its ${this.tableName} chain for ${owner} loops back on itself at ${this.unit} ${sector}`);
      if (!this.table.describes(sector)) {
        if (pastEnd === 'stop') return path.length + 1;
        throw damaged(`its ${this.tableName} has no entry for ${this.unit} ${sector}, which the chain for ${owner} runs through`);
      }
      this.stamp[sector] = this.walk;
      path.push(sector);
      const following = this.next[sector];
      if (following > MAX_REGULAR_SECTOR) {
        total = path.length;
        break;
      }
      sector = following;
    }
    path.forEach((s, i) => (this.tailLength[s] = total - i));
    return total;
  }

  /** The sectors of a chain, in order (after checking it). */
  sectors(start: number, owner: string): number[] {
    const n = this.length(start, owner);
    const out: number[] = [];
    for (let s = start, i = 0; i < n; i++, s = this.next[s]) out.push(s);
    return out;
  }
}

/** The directory: 128-byte entries read field by field from the directory chain's bytes. */
class Directory {
  readonly count: number;
  constructor(private readonly bytes: Buffer) {
    this.count = Math.floor(bytes.length / DIR_ENTRY_SIZE);
  }
  private at(i: number): number {
    return i * DIR_ENTRY_SIZE;
  }
  type(i: number): number {
    return this.bytes[this.at(i) + 66];
  }
  left(i: number): number {
    return this.bytes.readUInt32LE(this.at(i) + 68);
  }
  right(i: number): number {
    return this.bytes.readUInt32LE(this.at(i) + 72);
  }
  child(i: number): number {
    return this.bytes.readUInt32LE(this.at(i) + 76);
  }
  start(i: number): number {
    return this.bytes.readUInt32LE(this.at(i) + 116);
  }
  /** Stream size; the readers use the low 32 bits only (version 3 files may leave junk in the high ones). */
  size(i: number): number {
    return this.bytes.readUInt32LE(this.at(i) + 120);
  }
  allocated(i: number): boolean {
    const t = this.type(i);
    return t === ENTRY_STORAGE || t === ENTRY_STREAM || t === ENTRY_ROOT;
  }
  /** The entry as messages name it: entry 7 ("WordDocument"). */
  label(i: number): string {
    const nameBytes = Math.min(64, this.bytes.readUInt16LE(this.at(i) + 64));
    // Names such as "\u0005SummaryInformation" start with a control character; leave it out.
    const name = this.bytes
      .subarray(this.at(i), this.at(i) + Math.max(0, nameBytes - 2))
      .toString('utf16le')
      .replace(/^[\u0000-\u001f]/, '');
    return name ? `entry ${i} (${printable(name, 32)})` : `entry ${i}`;
  }
}

/**
 * The red-black tree of each storage (left/right siblings, child) must be a tree: every
 * link in range, no entry reached twice. Both readers recurse through these links; cfb
 * also walks entries that hang outside the root's tree, so loops among those count too.
 */
function checkDirectoryTree(dir: Directory): void {
  const UNSEEN = 0;
  const ON_PATH = 1;
  const DONE = 2;
  const state = new Uint8Array(dir.count);
  const stackEntry = new Uint32Array(dir.count);
  const stackEdge = new Uint8Array(dir.count);
  const links = (i: number, edge: number): number => (edge === 0 ? dir.left(i) : edge === 1 ? dir.right(i) : dir.child(i));

  const explore = (root: number, fromRoot: boolean): void => {
    let depth = 0;
    stackEntry[0] = root;
    stackEdge[0] = 0;
    state[root] = ON_PATH;
    while (depth >= 0) {
      const i = stackEntry[depth];
      if (stackEdge[depth] === 3) {
        state[i] = DONE;
        depth--;
        continue;
      }
      const target = links(i, stackEdge[depth]++);
      if (target === NO_ENTRY) continue;
      if (target >= dir.count) {
        if (!fromRoot) continue; // cfb and msgreader only fail on such links, they do not loop
        throw damaged(`its directory ${dir.label(i)} links to entry ${target}, but the directory holds ${dir.count} entries`);
      }
      if (!dir.allocated(target)) continue; // an empty slot: the readers skip it
      if (state[target] === ON_PATH) throw damaged(`its directory tree loops back on itself at ${dir.label(target)}`);
      if (state[target] === DONE) {
        if (!fromRoot) continue;
        throw damaged(`its directory tree reaches ${dir.label(target)} from two places`);
      }
      state[target] = ON_PATH;
      depth++;
      stackEntry[depth] = target;
      stackEdge[depth] = 0;
    }
  };

  explore(0, true);
  for (let i = 1; i < dir.count; i++) if (state[i] === UNSEEN && dir.allocated(i)) explore(i, false);
}

/**
 * A declared size the container could not hold at all (msgreader allocates it up front).
 * Chains shorter than their stream are otherwise let through: the readers return what the
 * chain holds, and sloppy writers produce them.
 */
function checkPossibleSize(size: number, capacity: number, owner: string, where: string): void {
  if (size > capacity) throw damaged(`${owner} declares ${size} bytes, more than ${where} (${capacity} bytes) could hold`);
}

async function checkContainer(src: ByteSource): Promise<void> {
  const hd = readHeader(await src.read(0, 512), src.size);
  const fat = await loadFat(src, hd);
  const lastSector = `the file's last sector (${hd.sectorCount - 1})`;
  const fatChains = new ChainWalker(fat, 'sector allocation table (FAT)', 'sector', lastSector);

  if (hd.firstDirectorySector > MAX_REGULAR_SECTOR) throw damaged('its header gives no directory');
  const directorySectors = fatChains.sectors(hd.firstDirectorySector, 'the directory');
  const dir = new Directory(Buffer.concat(await readSectors(src, hd, directorySectors)));
  if (dir.count === 0 || dir.type(0) !== ENTRY_ROOT) throw damaged('its directory does not begin with the root entry');
  checkDirectoryTree(dir);

  // The mini stream (the root entry's stream) holds every stream under the cutoff in 64-byte
  // mini sectors; the mini-FAT chains those.
  const fileCapacity = hd.sectorCount * hd.sectorSize;
  const miniStreamSectors = fatChains.length(dir.start(0), 'the mini stream');
  checkPossibleSize(dir.size(0), fileCapacity, 'the mini stream', "the file's sectors");
  const miniSectorCount = (miniStreamSectors * hd.sectorSize) / MINI_SECTOR_SIZE;
  const miniFat = new Uint32Array(miniSectorCount).fill(END_OF_CHAIN);
  if (hd.miniFatSectorCount > 0 && hd.firstMiniFatSector <= MAX_REGULAR_SECTOR) {
    const miniFatSectors = fatChains.sectors(hd.firstMiniFatSector, 'the mini-FAT');
    const table = Buffer.concat(await readSectors(src, hd, miniFatSectors));
    const n = Math.min(miniSectorCount, Math.floor(table.length / 4));
    for (let i = 0; i < n; i++) miniFat[i] = table.readUInt32LE(i * 4);
  }
  const miniChains = new ChainWalker(
    { next: miniFat, describes: () => true },
    'mini-FAT',
    'mini sector',
    `the end of the mini stream (${miniSectorCount} mini sectors)`,
  );

  for (let i = 1; i < dir.count; i++) {
    const size = dir.size(i);
    const start = dir.start(i);
    if (dir.type(i) === ENTRY_STREAM) {
      if (size === 0) continue;
      const owner = `the stream in directory ${dir.label(i)}`;
      if (size < MINI_STREAM_CUTOFF) {
        miniChains.length(start, owner);
        checkPossibleSize(size, miniSectorCount * MINI_SECTOR_SIZE, owner, 'the mini stream');
      } else {
        fatChains.length(start, owner);
        checkPossibleSize(size, fileCapacity, owner, "the file's sectors");
      }
    } else if (size >= MINI_STREAM_CUTOFF && size <= 0x7fffffff) {
      // cfb reads a FAT chain for any entry whose size says so, even an empty slot or a
      // storage; msgreader ignores them. Only a loop there hurts.
      fatChains.length(start, `directory ${dir.label(i)}`, 'stop');
    }
  }
}
