// OOXML and OpenDocument packages, read through the archive guard (../archive-guard.ts).
// Parts are read into memory by name, never extracted to disk by their stored path. Opening
// a package inflates every part once and discards it, so that each part is known to hold at
// most what its header declares before anyone trusts the headers: exceljs and LibreOffice
// read the same file with their own unzip and no such check.
import { Writable } from 'node:stream';
import { ArchiveBudget, GuardedZip, activeArchiveBudget, type ArchiveMember } from '../archive-guard.js';
import { printable } from '../kit/reasons.js';
import { ExtractionError } from '../kit/types.js';

/** Largest single part read into memory. */
const MAX_PART_BYTES = 256 * 1024 * 1024;

export interface ZipEntryInfo {
  name: string;
  compressedSize: number;
  uncompressedSize: number;
  encrypted: boolean;
}

export class ZipPackage {
  /** Package notes the readers copy into the job's warnings; none since unsafe names are refused outright. */
  readonly warnings: string[] = [];

  private constructor(
    private readonly zip: GuardedZip,
    private readonly byName: Map<string, ArchiveMember>,
  ) {}

  /** Opens and verifies the package; its parts draw from the upload's archive budget. */
  static async open(filePath: string, budget: ArchiveBudget = activeArchiveBudget()): Promise<ZipPackage> {
    const zip = await GuardedZip.open(filePath, budget);
    try {
      const members = await zip.members();
      await zip.verify(members);
      const byName = new Map<string, ArchiveMember>();
      for (const m of members) if (!m.isDirectory) byName.set(m.name.replace(/^\.\//, ''), m);
      return new ZipPackage(zip, byName);
    } catch (err) {
      zip.close();
      throw err;
    }
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  /** Case-insensitive lookup (some writers vary the case of part names). */
  resolve(name: string): string | null {
    if (this.byName.has(name)) return name;
    const lower = name.toLowerCase();
    for (const k of this.byName.keys()) if (k.toLowerCase() === lower) return k;
    return null;
  }

  info(name: string): ZipEntryInfo | null {
    const m = this.byName.get(name);
    if (!m) return null;
    return { name, compressedSize: m.compressedBytes, uncompressedSize: m.declaredBytes, encrypted: m.encrypted };
  }

  /**
   * Refuses the package when a part is too large to hold in memory. Compression ratios were
   * checked, and every declared size proven, when the package was opened.
   */
  checkRatios(): void {
    for (const [name, m] of this.byName) {
      if (m.declaredBytes > MAX_PART_BYTES) throw new ExtractionError(`package part ${printable(name)} is ${m.declaredBytes} bytes (limit ${MAX_PART_BYTES})`);
    }
  }

  /** A part's bytes; `maxBytes` bounds the memory (the guard holds the part to its declared size). */
  async read(name: string, maxBytes = MAX_PART_BYTES): Promise<Buffer> {
    const real = this.resolve(name);
    const m = real ? this.byName.get(real) : undefined;
    if (!m) throw new ExtractionError(`package part ${printable(name)} is missing`);
    if (m.encrypted) throw new ExtractionError(`package part ${printable(name)} is encrypted`, 'encrypted_document');
    if (m.declaredBytes > maxBytes) throw new ExtractionError(`package part ${printable(name)} is ${m.declaredBytes} bytes (limit ${maxBytes})`);
    const parts: Buffer[] = [];
    const collect = new Writable({
      write(chunk: Buffer, _enc, done) {
        parts.push(chunk);
        done();
      },
    });
    await this.zip.inflate(m, () => collect);
    return Buffer.concat(parts);
  }

  /** A part's bytes as they are inflated, chunk by chunk (memory stays flat whatever its size). */
  async stream(name: string, onChunk: (chunk: Buffer) => void): Promise<void> {
    const real = this.resolve(name);
    const m = real ? this.byName.get(real) : undefined;
    if (!m) throw new ExtractionError(`package part ${printable(name)} is missing`);
    if (m.encrypted) throw new ExtractionError(`package part ${printable(name)} is encrypted`, 'encrypted_document');
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        try {
          onChunk(chunk);
          done();
        } catch (err) {
          done(err as Error);
        }
      },
    });
    await this.zip.inflate(m, () => sink);
  }

  async readText(name: string, maxBytes?: number): Promise<string> {
    const buf = await this.read(name, maxBytes);
    let s = buf.toString('utf8');
    if (s.charCodeAt(0) === 0xfeff) s = s.slice(1);
    return s;
  }

  async readTextIfPresent(name: string, maxBytes?: number): Promise<string | null> {
    return this.resolve(name) ? this.readText(name, maxBytes) : null;
  }

  close(): void {
    this.zip.close();
  }
}
