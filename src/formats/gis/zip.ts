// Extraction of an uploaded ZIP (or a ZIP inside it) into the job's scratch folder, for GDAL
// to read the datasets in it (MapInfo must never be read through /vsizip/, and /vsizip/
// misses datasets in subfolders). Sizes, ratios, entry counts and unsafe names are the
// archive guard's (../archive-guard.ts): every byte written was counted as it was inflated,
// against the member's declared size and the upload's budget. Here: members must stay under
// the destination folder, symlinks are skipped, and a name may be written once.
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { ArchiveBudget, GuardedZip } from '../archive-guard.js';
import { printable } from '../kit/reasons.js';
import { ExtractionError } from '../kit/types.js';

/** Failures of the machine, not the archive: passed on as they are, so the job is retried. */
const MACHINE_ERRNO = new Set(['ENOSPC', 'EDQUOT', 'EIO', 'EMFILE', 'ENFILE']);

/** Write buffer: matches the guard's largest inflate chunk. */
const WRITE_CHUNK = 1024 * 1024;

export interface ExtractReport {
  entries: number;
  files: number;
  uncompressedBytes: number;
  /** Members not extracted (symbolic links), by path. */
  skipped: string[];
}

/**
 * Extracts every file of `zipPath` under `destDir`, drawing from `budget` (shared by every
 * archive of the upload) at nesting `depth`. Throws ExtractionError on unsafe or broken archives.
 */
export async function extractZip(zipPath: string, destDir: string, budget = new ArchiveBudget(), depth = 0): Promise<ExtractReport> {
  const zip = await GuardedZip.open(zipPath, budget, depth);
  const report: ExtractReport = { entries: 0, files: 0, uncompressedBytes: 0, skipped: [] };
  const root = path.resolve(destDir);
  try {
    await mkdir(root, { recursive: true });
    const members = await zip.members();
    report.entries = members.length;
    for (const m of members) {
      if (m.isSymlink) {
        report.skipped.push(m.name);
        continue;
      }
      const target = path.resolve(root, m.name);
      if (target !== root && !target.startsWith(root + path.sep)) {
        throw new ExtractionError(`The ZIP archive holds a member outside the archive root (${printable(m.name)}); refused.`);
      }
      if (m.isDirectory) {
        await mkdir(target, { recursive: true });
        continue;
      }
      const before = budget.inflatedBytes;
      try {
        await mkdir(path.dirname(target), { recursive: true });
        await zip.inflate(m, () => createWriteStream(target, { flags: 'wx', highWaterMark: WRITE_CHUNK }));
      } catch (err) {
        if (err instanceof ExtractionError) throw err;
        const e = err as NodeJS.ErrnoException;
        if (e.code === 'EEXIST') throw new ExtractionError(`The ZIP archive holds the same member twice (${printable(m.name)}).`);
        if (MACHINE_ERRNO.has(e.code ?? '')) throw err; // the machine's trouble: the job is retried
        // The error's own text names paths of this node: its code says enough.
        throw new ExtractionError(`ZIP member ${printable(m.name)} could not be extracted (${e.code ?? 'I/O error'}).`, 'extraction_failed', false, {
          cause: err,
        });
      }
      report.uncompressedBytes += budget.inflatedBytes - before;
      report.files++;
    }
  } finally {
    zip.close();
  }
  return report;
}
