// `docparse parse <files or globs…>`: uploads in parallel (--concurrency, 4), each file then
// waited for and its result written to --out as <name>.json; a summary table (file, format,
// units, seconds, status) or, with --json, one JSON line per file. Exit code 1 when any file
// did not complete.
import fs from 'node:fs/promises';
import path from 'node:path';
import { glob, isDynamicPattern } from 'tinyglobby';
import { DocparseError, type DocparseClient, type UploadOptions } from '../../sdk/index.js';
import { fileBlob } from '../../sdk/node.js';
import { table, type Out } from '../command-output.js';
import { UsageError } from '../command-values.js';
import type { ParseProgress } from './progress.js';

export interface ParseRow {
  file: string;
  documentId: string | null;
  format: string | null;
  units: number | null;
  seconds: number;
  status: string;
  error?: { code: string; message: string };
  output?: string;
}

/** The files named, globs expanded (sorted, each once); a name that matches nothing is a usage error. */
export async function expandInputs(patterns: string[], cwd: string): Promise<string[]> {
  const files: string[] = [];
  for (const p of patterns) {
    if (isDynamicPattern(p)) {
      const found = await glob(p, { cwd, onlyFiles: true, absolute: false, expandDirectories: false });
      if (found.length === 0) throw new UsageError(`no file matches ${p}`);
      files.push(...found.sort());
      continue;
    }
    const st = await fs.stat(path.resolve(cwd, p)).catch(() => null);
    if (!st?.isFile()) throw new UsageError(`${p}: no such file`);
    files.push(p);
  }
  return [...new Set(files)];
}

/** <base name>.json in dir, with -2, -3… when two inputs share a name. */
function outputNames(files: string[]): Map<string, string> {
  const used = new Set<string>();
  const names = new Map<string, string>();
  for (const f of files) {
    const base = path.basename(f);
    let name = `${base}.json`;
    for (let i = 2; used.has(name); i++) name = `${base}-${i}.json`;
    used.add(name);
    names.set(f, name);
  }
  return names;
}

export interface ParseRun {
  client: DocparseClient;
  files: string[];
  cwd: string;
  options: Omit<UploadOptions, 'fileName' | 'onProgress' | 'signal'>;
  outDir: string | null;
  concurrency: number;
  progress: ParseProgress;
}

export async function parseFiles(run: ParseRun): Promise<ParseRow[]> {
  const names = outputNames(run.files);
  if (run.outDir) await fs.mkdir(run.outDir, { recursive: true });
  const rows: ParseRow[] = new Array(run.files.length);
  let next = 0;
  const lane = async () => {
    while (next < run.files.length) {
      const i = next++;
      rows[i] = await parseOne(run, run.files[i], names.get(run.files[i])!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(run.concurrency, run.files.length) }, lane));
  return rows;
}

async function parseOne(run: ParseRun, file: string, outName: string): Promise<ParseRow> {
  const started = Date.now();
  const seconds = () => Math.round((Date.now() - started) / 100) / 10;
  let documentId: string | null = null;
  try {
    const blob = await fileBlob(path.resolve(run.cwd, file));
    run.progress.start(file, blob.size);
    const accepted = await run.client.upload(blob, { ...run.options, fileName: path.basename(file), onProgress: (p) => run.progress.sent(file, p.sentBytes) });
    documentId = accepted.documentId;
    run.progress.state(file, accepted.status.toLowerCase());
    const end = await run.client.waitFor(documentId, { onStatus: (s) => run.progress.state(file, s.status) });
    if (end.status === 'failed') {
      run.progress.state(file, `failed: ${end.error?.code ?? 'failed'}`, true);
      return {
        file,
        documentId,
        format: end.format,
        units: end.documentUnits,
        seconds: seconds(),
        status: 'failed',
        error: end.error && { code: end.error.code, message: end.error.message },
      };
    }
    const artifact = await run.client.result(documentId);
    let output: string | undefined;
    if (run.outDir) {
      output = path.join(run.outDir, outName);
      await fs.writeFile(output, JSON.stringify(artifact, null, 2) + '\n');
    }
    run.progress.state(file, 'completed', true);
    return {
      file,
      documentId,
      format: artifact.document_format,
      units: artifact.documentUnits,
      seconds: seconds(),
      status: 'completed',
      ...(output ? { output } : {}),
    };
  } catch (err) {
    const e = err instanceof DocparseError ? { code: err.code, message: err.detail } : { code: 'error', message: (err as Error).message };
    run.progress.state(file, `failed: ${e.code}`, true);
    return { file, documentId, format: null, units: null, seconds: seconds(), status: 'failed', error: e };
  }
}

export function summaryTable(rows: ParseRow[]): string[] {
  const lines = table([
    ['FILE', 'FORMAT', 'UNITS', 'SECONDS', 'STATUS'],
    ...rows.map((r) => [
      r.file,
      r.format ?? '-',
      r.units === null ? '-' : String(r.units),
      r.seconds.toFixed(1),
      r.error ? `${r.status}: ${r.error.code}` : r.status,
    ]),
  ]);
  const failed = rows.filter((r) => r.status !== 'completed').length;
  return [...lines, '', `${rows.length - failed} completed, ${failed} failed`];
}

export function printRows(out: Out, rows: ParseRow[], json: boolean): void {
  if (json) for (const r of rows) out(JSON.stringify(r));
  else for (const l of summaryTable(rows)) out(l);
}
