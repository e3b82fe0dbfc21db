// Runs a format parser in-process exactly as the worker thread does (src/pipeline/thread.ts)
// and returns the parsed artifact, for family tests on real files.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseTaskWith, writeArtifact } from '../../src/pipeline/thread.js';
import type { FormatParser } from '../../src/formats/kit/types.js';
import type { ParseTask } from '../../src/pipeline/task.js';
import type { JobOptions } from '../../src/formats/kit/options.js';
import type { ParserSettings } from '../../src/formats/settings.js';
import { parserSettings } from './parser-settings.js';

/** The real-files corpus (test/helpers/corpus-dir.mjs); unavailable in a clone without it. */
export { CORPUS_DIR as CORPUS_ROOT, CORPUS_AVAILABLE } from './corpus-dir.mjs';
import { CORPUS_DIR as CORPUS_ROOT } from './corpus-dir.mjs';

export function corpusPath(family: string, file: string): string {
  return path.join(CORPUS_ROOT, family, file);
}

/** MANIFEST.tsv of a corpus folder as row objects keyed by its header. */
export async function readManifest(family: string): Promise<Record<string, string>[]> {
  const text = await fs.readFile(path.join(CORPUS_ROOT, family, 'MANIFEST.tsv'), 'utf8');
  const [head, ...rows] = text.split('\n').filter((l) => l.trim());
  const cols = head.split('\t');
  return rows.map((r) => Object.fromEntries(r.split('\t').map((v, i) => [cols[i], v])));
}

export type ParseResult = { ok: true; artifact: Record<string, any>; bytes: number } | { ok: false; code: string; message: string; transient: boolean };

/**
 * Parses a file with the registered parser for `format` and returns the artifact JSON.
 * `settings`: the node's parser settings (test/helpers/parser-settings.ts) the parse runs with.
 */
export function parseFile(
  filePath: string,
  format: string,
  options: JobOptions = {},
  fileName = path.basename(filePath),
  settings: ParserSettings = parserSettings(),
): Promise<ParseResult> {
  return run(filePath, format, options, fileName, (task) => parseTaskWith(task, settings));
}

/** Same, with a given parser (for a family not yet in the registry). */
export function parseFileWith(
  parser: FormatParser,
  filePath: string,
  format: string,
  options: JobOptions = {},
  fileName = path.basename(filePath),
  settings: ParserSettings = parserSettings(),
): Promise<ParseResult> {
  return run(filePath, format, options, fileName, (task) => writeArtifact(task, async () => parser, settings));
}

async function run(
  filePath: string,
  format: string,
  options: JobOptions,
  fileName: string,
  exec: (t: ParseTask) => Promise<Awaited<ReturnType<typeof parseTaskWith>>>,
): Promise<ParseResult> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dp-parse-'));
  try {
    const artifactPath = path.join(dir, 'artifact.json');
    const r = await exec({
      documentId: 'test-doc',
      fileName,
      format,
      options,
      customMetadata: null,
      inputPath: filePath,
      artifactPath,
      tempDir: dir,
    });
    if (!r.ok) return r;
    return { ok: true, artifact: JSON.parse(await fs.readFile(artifactPath, 'utf8')), bytes: r.artifactBytes };
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/** The artifact of a parse that must have succeeded (the failure's code and message otherwise). */
export function artifactOf(r: ParseResult): Record<string, any> {
  if (!r.ok) throw new Error(`parse failed: ${r.code} ${r.message}`);
  return r.artifact;
}
