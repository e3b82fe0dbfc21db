// Runs the CSV parser in-process the way a worker thread does: a JsonWriter over a file write
// stream in a temp dir, then reads the content value back.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { JsonWriter } from '../../../src/formats/kit/json-writer.js';
import { parseCsv } from '../../../src/formats/csv/index.js';
import type { ParseOutcome } from '../../../src/formats/kit/types.js';
import type { Provenance } from '../../../src/formats/kit/provenance.js';
import { corpusPath, CORPUS_ROOT } from '../../helpers/parse.js';
import { parserSettings } from '../../helpers/parser-settings.js';

const CORPUS = path.join(CORPUS_ROOT, 'csv');

export function corpusFile(name: string): string {
  return corpusPath('csv', name);
}

export interface ManifestEntry {
  file: string;
  whatItTests: string;
  encoding: string | null;
  rows: number | null;
  fields: number | null;
  geom: string | null;
  openError: boolean;
}

/** MANIFEST.tsv ground truth (native GDAL 3.6.2 + `file` encoding). */
export function readManifest(): ManifestEntry[] {
  const lines = fs.readFileSync(path.join(CORPUS, 'MANIFEST.tsv'), 'utf8').split('\n').filter(Boolean);
  const head = lines[0].split('\t');
  const col = (name: string): number => head.indexOf(name);
  return lines.slice(1).map((line) => {
    const cells = line.split('\t');
    const truth = cells[col('ground_truth')] ?? '';
    const num = (re: RegExp): number | null => {
      const m = re.exec(truth);
      return m ? Number(m[1]) : null;
    };
    return {
      file: cells[col('file')],
      whatItTests: cells[col('what_it_tests')],
      encoding: /encoding=([\w-]+)/.exec(truth)?.[1] ?? null,
      rows: num(/rows=(\d+)/),
      fields: num(/fields=(\d+)/),
      geom: /geom=(\S+)/.exec(truth)?.[1] ?? null,
      openError: truth.includes('OPEN ERROR'),
    };
  });
}

export interface CsvRun<C = any> {
  content: C;
  outcome: ParseOutcome;
  progress: number[];
  artifactBytes: number;
}

export async function tempDir(): Promise<string> {
  return fsp.mkdtemp(path.join(os.tmpdir(), 'docparse-csv-'));
}

/** Parses a file and returns the content value parsed back from the written JSON. */
export async function runCsv<C = any>(
  filePath: string,
  route: 'Tabular' | 'Spatial' = 'Tabular',
  opts: { keepOutput?: boolean; parseOutput?: boolean; within?: Provenance } = {},
): Promise<CsvRun<C> & { outPath: string }> {
  const dir = await tempDir();
  const outPath = path.join(dir, 'content.json');
  const out = fs.createWriteStream(outPath);
  await once(out, 'open');
  const writer = new JsonWriter(out);
  const progress: number[] = [];
  try {
    const outcome = await parseCsv(
      {
        filePath,
        fileName: path.basename(filePath),
        format: 'csv',
        options: { csvRoute: route },
        settings: parserSettings(),
        tempDir: dir,
        progress: (f) => progress.push(f),
        ...(opts.within ? { within: opts.within } : {}),
      },
      writer,
    );
    await writer.finish();
    out.end();
    await once(out, 'finish');
    const content = opts.parseOutput === false ? (null as C) : (JSON.parse(await fsp.readFile(outPath, 'utf8')) as C);
    return { content, outcome, progress, artifactBytes: writer.bytesWritten, outPath };
  } finally {
    if (!out.closed) out.destroy();
    if (!opts.keepOutput) await fsp.rm(dir, { recursive: true, force: true });
  }
}

const tempFileDirs: string[] = [];

/** Writes bytes to a temp file and returns its path (removed by removeTempFiles). */
export async function tempFile(name: string, data: string | Buffer): Promise<string> {
  const dir = await tempDir();
  tempFileDirs.push(dir);
  const p = path.join(dir, name);
  await fsp.writeFile(p, data);
  return p;
}

/** Removes the temp files written by tempFile (call from afterAll). */
export async function removeTempFiles(): Promise<void> {
  await Promise.all(tempFileDirs.splice(0).map((d) => fsp.rm(d, { recursive: true, force: true })));
}
