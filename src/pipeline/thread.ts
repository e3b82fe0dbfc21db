// Worker-thread entry (run by Piscina; small CSV tasks also by the parsing process's main
// thread, pool.ts and inline-tasks.ts). Loads the family's parser once per thread, runs it on
// the upload, and writes the whole artifact as a stream.
import { once } from 'node:events';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { JsonWriter } from '../formats/kit/json-writer.js';
import { SyncFileStream } from './sync-file-stream.js';
import { FORMATS } from '../formats/registry.js';
import { ExtractionError, type FormatParser } from '../formats/kit/types.js';
import { SCHEMA_VERSION, type ParseTask, type ParseTaskResult } from './task.js';
import { retireIfOverCeiling, TaskMemory } from './thread-context.js';
import { enterTask } from '../formats/process-groups.js';
import { failureReasons } from './failure-reasons.js';
import { unitMeterFor } from './unit-meter.js';
import { progressReporter } from './task-progress.js';
import { ArchiveBudget, withArchiveBudget } from '../formats/archive-guard.js';
import { DEFAULT_PARSER_SETTINGS, type ParserSettings } from '../formats/settings.js';
import { threadParserSettings } from './thread-context.js';
import { embeddedParsers } from './embedded-parsers.js';

const parsers = new Map<string, Promise<FormatParser>>();

function parserFor(format: string): Promise<FormatParser> {
  let p = parsers.get(format);
  if (!p) {
    const info = FORMATS[format];
    if (!info?.load) return Promise.reject(new ExtractionError(`no parser for format ${format}`));
    p = info.load();
    parsers.set(format, p);
  }
  return p;
}

/** Documents inside a document (e-mail attachments) are parsed by their family's parser. */
const embedded = embeddedParsers(parserFor);

/** Piscina's entry: the task with the settings the pool handed this thread. */
export default function runParseTask(task: ParseTask): Promise<ParseTaskResult> {
  const settings = threadParserSettings();
  if (!settings) return Promise.reject(new Error('runParseTask runs in a pool thread (workerData.parsers); call parseTaskWith elsewhere'));
  return parseTaskWith(task, settings);
}

/** One task with the registered parser for its format, under `settings`. */
export function parseTaskWith(task: ParseTask, settings: ParserSettings): Promise<ParseTaskResult> {
  return asTask(task, () => writeArtifact(task, () => parserFor(task.format), settings));
}

/**
 * An inline task (inline-tasks.ts) on the parsing process's main thread: parseTaskWith without
 * the archive budget. Its format opens no archive, so there is no budget to share; and the
 * budget's AsyncLocalStorage, once run, turns on Node 20's promise hooks for every promise the
 * process makes after it (its IPC with the node's included), not only this task's.
 */
export function parseInlineTask(task: ParseTask, settings: ParserSettings): Promise<ParseTaskResult> {
  return asTask(task, () => streamArtifact(task, () => parserFor(task.format), settings));
}

/** Runs parse as the task this thread is on (its id for logs and progress), then retires the thread if over its ceiling. */
async function asTask(task: ParseTask, parse: () => Promise<ParseTaskResult>): Promise<ParseTaskResult> {
  enterTask(task.taskId ?? null);
  try {
    return await parse();
  } finally {
    enterTask(null);
    retireIfOverCeiling();
  }
}

/**
 * Runs one parser over the task's upload and streams the whole artifact to disk, with the
 * node's parser settings (the defaults for a parser run without a node: a bench).
 */
export async function writeArtifact(
  task: ParseTask,
  loadParser: () => Promise<FormatParser>,
  settings: ParserSettings = DEFAULT_PARSER_SETTINGS,
  // One archive budget for the whole upload, however many archives its parser opens.
  budget = new ArchiveBudget(settings.archive),
): Promise<ParseTaskResult> {
  return withArchiveBudget(budget, () => streamArtifact(task, loadParser, settings));
}

async function streamArtifact(task: ParseTask, loadParser: () => Promise<FormatParser>, settings: ParserSettings): Promise<ParseTaskResult> {
  // Written synchronously (SyncFileStream): this thread has nothing else to do meanwhile, and
  // the process-wide thread pool would make each write wait behind other jobs' file I/O.
  let out: SyncFileStream | null = null;
  try {
    out = openArtifact(task.artifactPath, !task.artifactInPlace);
    // The task's memory outside the JS heap, checked each time the parser reports progress.
    const memory = new TaskMemory(settings.memory.maxBytes);
    const report = progressReporter(task.taskId);
    const parse = await loadParser();
    const w = new JsonWriter(out);
    w.beginObject()
      .field('schema_version', SCHEMA_VERSION)
      .field('documentId', task.documentId)
      .field('fileName', task.fileName)
      .field('customMetadata', task.customMetadata ?? {})
      .key('content');
    const scratch = new LazyScratch(task.tempDir);
    const outcome = await parse(
      {
        filePath: task.inputPath,
        fileName: task.fileName,
        format: task.format,
        options: task.options,
        settings,
        get tempDir() {
          return scratch.path();
        },
        progress: (fraction) => {
          memory.check();
          report(fraction);
        },
        units: unitMeterFor(task.taskId),
        embedded,
      },
      w,
    );
    w.field('document_format', outcome.documentFormat)
      .field('documentUnits', outcome.documentUnits)
      .field('metadata', outcome.metadata)
      .field('warnings', outcome.warnings);
    w.field('completeness', outcome.completeness);
    if (outcome.chunks) {
      w.key('chunks').beginArray();
      for (const c of outcome.chunks) {
        w.value(c);
        await w.maybeFlush();
      }
      w.endArray();
    }
    w.endObject();
    await w.finish();
    out.end();
    await once(out, 'finish');
    return {
      ok: true,
      documentFormat: outcome.documentFormat,
      documentUnits: outcome.documentUnits,
      artifactBytes: w.bytesWritten,
      warnings: outcome.warnings.length,
      parts: outcome.parts ?? [],
      scratchUsed: scratch.made,
    };
  } catch (err) {
    // The artifact file's own failures: it could not be created (out is still null), or the
    // stream failed on a write or on closing (the error thrown is the stream's).
    const writing = out === null || (out.errored !== null && out.errored === err);
    out?.destroy();
    // The upload is not checked for before the task (one file-system call less per job): a
    // parser that fails on a missing upload says so here, whatever error its open gave.
    if (!existsSync(task.inputPath)) {
      return {
        ok: false,
        code: 'extraction_failed',
        message: failureReasons.uploadMissing(),
        transient: false,
        internal: (err as Error)?.stack ?? String(err),
      };
    }
    if (err instanceof ExtractionError) return { ok: false, code: err.code, message: err.message, transient: err.transient, internal: err.internal };
    const e = err as NodeJS.ErrnoException;
    const transient = typeof e?.code === 'string' && MACHINE_ERRNO.has(e.code);
    const raw = e?.stack ?? e?.message ?? String(err);
    if (writing)
      return { ok: false, code: 'extraction_failed', message: `The result file could not be written (${e?.code ?? 'I/O error'}).`, transient, internal: raw };
    if (transient) return { ok: false, code: 'extraction_failed', message: `The parser ran out of a machine resource (${e.code}).`, transient, internal: raw };
    return { ok: false, code: 'extraction_failed', message: failureReasons.unreadable(task.format), transient: false, internal: raw };
  }
}

/** The artifact file (only the service's user reads it), its folder made on first use when `makeFolder`. */
function openArtifact(file: string, makeFolder: boolean): SyncFileStream {
  try {
    return new SyncFileStream(file, { mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || !makeFolder) throw err;
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    return new SyncFileStream(file, { mode: 0o600 });
  }
}

/**
 * The task's scratch folder, made the first time a parser asks for it: most parses (CSV, SQL,
 * text PDFs) need none, and a folder made and removed per job costs the file system an inode
 * allocation that, under churn, scans past recently deleted inodes (ext4's `recently_deleted`
 * was a quarter of a busy node's CPU).
 */
class LazyScratch {
  made = false;
  constructor(private readonly dir: string) {}
  path(): string {
    if (!this.made) {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      this.made = true;
    }
    return this.dir;
  }
}

/**
 * errno codes that are the machine's trouble, not the document's — a full disk or quota, a
 * failing disk, no file handles left: the job is retried (with backoff, possibly elsewhere).
 */
const MACHINE_ERRNO = new Set(['ENOSPC', 'EDQUOT', 'EIO', 'EMFILE', 'ENFILE', 'EAGAIN']);
