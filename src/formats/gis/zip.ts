// Safe extraction of an uploaded ZIP into the job's scratch folder, for GDAL to read the
// datasets in it (MapInfo must never be read through /vsizip/, and /vsizip/ misses datasets
// in subfolders). Guards: entry count, total and per-entry uncompressed size, compression
// ratio, '..'/absolute/drive names, symlinks. Sizes are checked against what is actually
// inflated, not only what the headers claim.
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { createInflateRaw } from 'node:zlib';
import yauzl from 'yauzl';
import { ExtractionError } from '../types.js';

/** Inflate and write chunk size. */
const CHUNK = 1024 * 1024;

export interface ZipLimits {
  maxEntries: number;
  maxTotalBytes: number;
  /** Largest uncompressed/compressed ratio accepted for entries above 1 MiB. */
  maxRatio: number;
}

function envInt(name: string, dflt: number): number {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? Math.floor(v) : dflt;
}

export function zipLimits(): ZipLimits {
  return {
    maxEntries: envInt('DOCPARSE_GIS_MAX_ZIP_ENTRIES', 20_000),
    maxTotalBytes: envInt('DOCPARSE_GIS_MAX_UNZIPPED_BYTES', 4 * 1024 ** 3),
    maxRatio: envInt('DOCPARSE_GIS_MAX_ZIP_RATIO', 1000),
  };
}

export interface ExtractReport {
  entries: number;
  files: number;
  uncompressedBytes: number;
  skipped: string[];
}

/** True when the file starts like a ZIP archive. */
function unsafeName(name: string): string | null {
  if (name.includes('\0')) return 'contains a NUL character';
  if (name.startsWith('/') || name.startsWith('\\') || /^[A-Za-z]:/.test(name)) return 'is an absolute path';
  if (name.split(/[\\/]+/).some((p) => p === '..')) return "contains '..'";
  return null;
}

function openZip(file: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true, autoClose: true, decodeStrings: true, validateEntrySizes: true, strictFileNames: false }, (err, zip) => {
      if (err || !zip) reject(err ?? new Error('cannot open'));
      else resolve(zip);
    });
  });
}

/** Extracts every file of `zipPath` under `destDir`. Throws ExtractionError on unsafe or broken archives. */
export async function extractZip(zipPath: string, destDir: string, limits = zipLimits()): Promise<ExtractReport> {
  let zip: yauzl.ZipFile;
  try {
    zip = await openZip(zipPath);
  } catch (err) {
    throw new ExtractionError(`The upload is not a readable ZIP archive: ${(err as Error).message}.`);
  }
  const report: ExtractReport = { entries: 0, files: 0, uncompressedBytes: 0, skipped: [] };
  const root = path.resolve(destDir);
  await mkdir(root, { recursive: true });

  try {
    await new Promise<void>((resolve, reject) => {
      const fail = (e: unknown) => {
        zip.close();
        reject(e);
      };
      zip.on('error', (e) => fail(new ExtractionError(`The ZIP archive is corrupt: ${(e as Error).message}.`)));
      zip.on('end', () => resolve());
      zip.on('entry', (entry: yauzl.Entry) => {
        (async () => {
          report.entries++;
          if (report.entries > limits.maxEntries) {
            throw new ExtractionError(`The ZIP archive has more than ${limits.maxEntries} entries; refused.`);
          }
          const name = entry.fileName;
          const bad = unsafeName(name);
          if (bad) throw new ExtractionError(`The ZIP archive holds an unsafe member name (${JSON.stringify(name)} ${bad}); refused.`);
          const mode = (entry.externalFileAttributes >>> 16) & 0o170000;
          if (mode === 0o120000) {
            report.skipped.push(`${name} (symbolic link)`);
            return;
          }
          const target = path.resolve(root, name);
          if (target !== root && !target.startsWith(root + path.sep)) {
            throw new ExtractionError(`The ZIP archive holds a member outside the archive root (${JSON.stringify(name)}); refused.`);
          }
          if (/\/$/.test(name)) {
            await mkdir(target, { recursive: true });
            return;
          }
          const declared = entry.uncompressedSize;
          if (report.uncompressedBytes + declared > limits.maxTotalBytes) {
            throw new ExtractionError(`The ZIP archive expands to more than ${limits.maxTotalBytes} bytes; refused.`);
          }
          if (declared > 1024 * 1024 && entry.compressedSize > 0 && declared / entry.compressedSize > limits.maxRatio) {
            throw new ExtractionError(`ZIP member ${JSON.stringify(name)} has a compression ratio above ${limits.maxRatio}:1 (possible zip bomb); refused.`);
          }
          if (entry.isEncrypted()) throw new ExtractionError(`ZIP member ${JSON.stringify(name)} is encrypted; password-protected archives are not supported.`, 'encrypted_document');
          await mkdir(path.dirname(target), { recursive: true });
          // Deflated members are inflated here rather than by yauzl, in 1 MiB chunks (zlib's
          // default is 16 KiB): a 35 MB shapefile is then ~35 chunks through the guard and the
          // file, not ~2,200. The size check yauzl would do is done below.
          const deflated = entry.compressionMethod === 8;
          const raw = await new Promise<NodeJS.ReadableStream>((res, rej) =>
            zip.openReadStream(entry, deflated ? { decodeFileData: false } : {}, (e, s) => (e || !s ? rej(e ?? new Error('no stream')) : res(s))),
          );
          let seen = 0;
          const counter = new Transform({
            transform(chunk: Buffer, _enc, cb) {
              seen += chunk.length;
              if (report.uncompressedBytes + seen > limits.maxTotalBytes) {
                cb(new ExtractionError(`The ZIP archive expands to more than ${limits.maxTotalBytes} bytes; refused.`));
              } else cb(null, chunk);
            },
          });
          const sink = createWriteStream(target, { flags: 'wx', highWaterMark: CHUNK });
          if (deflated) await pipeline(raw, createInflateRaw({ chunkSize: CHUNK }), counter, sink);
          else await pipeline(raw, counter, sink);
          if (deflated && seen !== declared) {
            throw new Error(`${seen > declared ? 'too many' : 'not enough'} bytes in the stream: expected ${declared}, got ${seen}`);
          }
          report.uncompressedBytes += seen;
          report.files++;
        })().then(
          () => zip.readEntry(),
          (e) => {
            const err = e as NodeJS.ErrnoException;
            if (e instanceof ExtractionError) fail(e);
            else if (err.code === 'EEXIST') fail(new ExtractionError(`The ZIP archive holds the same member twice (${JSON.stringify(entry.fileName)}).`));
            else if (err.code === 'ENOSPC' || err.code === 'EMFILE') fail(e);
            else fail(new ExtractionError(`ZIP member ${JSON.stringify(entry.fileName)} could not be extracted: ${err.message}.`));
          },
        );
      });
      zip.readEntry();
    });
  } finally {
    zip.close();
  }
  return report;
}
