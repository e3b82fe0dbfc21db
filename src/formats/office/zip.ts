// Guarded ZIP access for OOXML and OpenDocument packages. Entries are read into memory by
// name (never extracted to disk by their stored path), after checking the declared sizes
// and compression ratios, and the inflated byte count is enforced while reading, so a
// lying header cannot blow the heap.
import yauzl from 'yauzl';
import { ExtractionError } from '../types.js';

export interface ZipLimits {
  maxEntries: number;
  /** Sum of declared uncompressed sizes. */
  maxTotalBytes: number;
  /** Largest single entry read into memory. */
  maxEntryBytes: number;
  /** Uncompressed/compressed ratio above which a large entry is refused. */
  maxRatio: number;
}

export const DEFAULT_ZIP_LIMITS: ZipLimits = {
  maxEntries: 20_000,
  maxTotalBytes: 1024 * 1024 * 1024,
  maxEntryBytes: 256 * 1024 * 1024,
  maxRatio: 200,
};

export interface ZipEntryInfo {
  name: string;
  compressedSize: number;
  uncompressedSize: number;
  encrypted: boolean;
}

export class ZipPackage {
  private constructor(
    private readonly zip: yauzl.ZipFile,
    private readonly byName: Map<string, yauzl.Entry>,
    readonly limits: ZipLimits,
    readonly warnings: string[],
  ) {}

  static async open(filePath: string, limits: ZipLimits = DEFAULT_ZIP_LIMITS): Promise<ZipPackage> {
    const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
      yauzl.open(filePath, { lazyEntries: true, autoClose: false, strictFileNames: false, validateEntrySizes: true }, (err, z) =>
        err || !z ? reject(err) : resolve(z),
      ),
    ).catch((err: Error) => {
      throw new ExtractionError(`not a readable ZIP package (${err.message}); the file is truncated or is not this format`);
    });
    const byName = new Map<string, yauzl.Entry>();
    const warnings: string[] = [];
    let total = 0;
    try {
      if (zip.entryCount > limits.maxEntries) throw new ExtractionError(`ZIP package has ${zip.entryCount} entries (limit ${limits.maxEntries})`);
      await new Promise<void>((resolve, reject) => {
        zip.on('entry', (e: yauzl.Entry) => {
          const name = e.fileName.replace(/\\/g, '/');
          if (name.split('/').includes('..') || name.startsWith('/')) {
            warnings.push(`ignored ZIP entry with an unsafe path: ${name.slice(0, 200)}`);
          } else {
            total += e.uncompressedSize;
            if (total > limits.maxTotalBytes) {
              reject(new ExtractionError(`ZIP package expands to more than ${limits.maxTotalBytes} bytes; refused as a possible zip bomb`));
              return;
            }
            byName.set(name.replace(/^\.\//, ''), e);
          }
          zip.readEntry();
        });
        zip.on('end', () => resolve());
        zip.on('error', (err: Error) => reject(err));
        zip.readEntry();
      });
    } catch (err) {
      zip.close();
      if (err instanceof ExtractionError) throw err;
      const msg = (err as Error).message;
      if (/invalid relative path|absolute path|invalid characters in fileName/.test(msg)) {
        throw new ExtractionError(`ZIP package refused: it has an entry with an unsafe path (${msg.slice(0, 200)})`);
      }
      throw new ExtractionError(`corrupt ZIP package: ${msg}`);
    }
    return new ZipPackage(zip, byName, limits, warnings);
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
    const e = this.byName.get(name);
    if (!e) return null;
    return { name, compressedSize: e.compressedSize, uncompressedSize: e.uncompressedSize, encrypted: (e.generalPurposeBitFlag & 1) !== 0 };
  }

  /** Refuses the package when any large entry has a bomb-like compression ratio. */
  checkRatios(): void {
    for (const [name, e] of this.byName) {
      if (e.uncompressedSize > 1024 * 1024 && e.compressedSize > 0 && e.uncompressedSize / e.compressedSize > this.limits.maxRatio) {
        throw new ExtractionError(`package part ${name} has a compression ratio of ${Math.round(e.uncompressedSize / e.compressedSize)}:1; refused as a possible zip bomb`);
      }
      if (e.uncompressedSize > this.limits.maxEntryBytes) throw new ExtractionError(`package part ${name} is ${e.uncompressedSize} bytes (limit ${this.limits.maxEntryBytes})`);
    }
  }

  async read(name: string, maxBytes = this.limits.maxEntryBytes): Promise<Buffer> {
    const real = this.resolve(name);
    const e = real ? this.byName.get(real) : undefined;
    if (!e) throw new ExtractionError(`package part ${name} is missing`);
    if ((e.generalPurposeBitFlag & 1) !== 0) throw new ExtractionError(`package part ${name} is encrypted`, 'encrypted_document');
    if (e.uncompressedSize > maxBytes) throw new ExtractionError(`package part ${name} is ${e.uncompressedSize} bytes (limit ${maxBytes})`);
    if (e.uncompressedSize > 1024 * 1024 && e.compressedSize > 0 && e.uncompressedSize / e.compressedSize > this.limits.maxRatio) {
      throw new ExtractionError(`package part ${name} has a compression ratio of ${Math.round(e.uncompressedSize / e.compressedSize)}:1; refused as a possible zip bomb`);
    }
    const stream = await new Promise<NodeJS.ReadableStream>((resolve, reject) =>
      this.zip.openReadStream(e, (err, s) => (err || !s ? reject(err) : resolve(s))),
    ).catch((err: Error) => {
      throw new ExtractionError(`cannot read package part ${name}: ${err.message}`);
    });
    const parts: Buffer[] = [];
    let n = 0;
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        n += chunk.length;
        if (n > maxBytes) throw new ExtractionError(`package part ${name} inflates beyond ${maxBytes} bytes`);
        parts.push(chunk);
      }
    } catch (err) {
      if (err instanceof ExtractionError) throw err;
      throw new ExtractionError(`corrupt package part ${name}: ${(err as Error).message}`);
    }
    return Buffer.concat(parts);
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

  private closed = false;

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.zip.close();
  }
}
