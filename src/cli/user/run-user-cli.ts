// The commands for API users, `docparse parse|status|result|cancel`, built on the SDK: credentials
// from the environment or a config file (credentials.ts), --json for machine output.
// Exit codes: 0 done, 1 a file, a job or the API failed, 2 bad command line.
import fs from 'node:fs/promises';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { DocparseClient, DocparseError, type UploadOptions } from '../../sdk/index.js';
import { table, terminalOut, type Out } from '../command-output.js';
import { parseCount, UsageError } from '../command-values.js';
import { resolveCredentials } from './credentials.js';
import { expandInputs, parseFiles, printRows } from './parse-command.js';
import { plainLines, silent, terminalBars } from './progress.js';
import { tokenFile, tokenFilePath } from './token-file.js';
import { USER_USAGE } from './usage.js';

export interface UserIo {
  out: Out;
  err: Out;
  /** Where the bars are drawn, when it is a terminal. */
  stdout: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

type Options = NonNullable<ParseArgsConfig['options']>;
const COMMON: Options = { json: { type: 'boolean' }, config: { type: 'string' }, help: { type: 'boolean', short: 'h' } };

const PARSE_USAGE =
  'docparse parse <files or globs…> [--pdf-mode M] [--csv-route R] [--sql-dialect D] [--document-type T] [--parquet-mode M] [--chunk-hints] [--out DIR] [--concurrency N] [--json] [--config FILE]';

const PARSE_OPTIONS: Options = {
  ...COMMON,
  out: { type: 'string' },
  concurrency: { type: 'string' },
  'pdf-mode': { type: 'string' },
  'csv-route': { type: 'string' },
  'sql-dialect': { type: 'string' },
  'document-type': { type: 'string' },
  'parquet-mode': { type: 'string' },
  'chunk-hints': { type: 'boolean' },
};

function clientFor(values: Record<string, unknown>, io: UserIo): DocparseClient {
  const c = resolveCredentials(io.env, values.config as string | undefined);
  return new DocparseClient({
    baseUrl: c.url,
    clientId: c.clientId,
    clientSecret: c.clientSecret,
    tokenCache: tokenFile(tokenFilePath(io.env, c)),
  });
}

export async function runUserCommand(name: keyof typeof USER_USAGE, args: string[], io: UserIo): Promise<number> {
  const usage = name === 'parse' ? PARSE_USAGE : USER_USAGE[name][0];
  let json = args.includes('--json');
  try {
    const { values, positionals } = parseArgs({
      args,
      options: name === 'parse' ? PARSE_OPTIONS : name === 'result' ? { ...COMMON, out: { type: 'string' } } : COMMON,
      allowPositionals: true,
      strict: true,
    });
    json = values.json === true;
    if (values.help) {
      io.out(`usage: ${usage}`);
      io.out(`  ${USER_USAGE[name][1]}`);
      io.out('  credentials: DOCPARSE_URL, DOCPARSE_CLIENT_ID, DOCPARSE_CLIENT_SECRET, or --config FILE (default ~/.config/docparse/config.json)');
      return 0;
    }
    if (name === 'parse') return await parse(values, positionals, io, json);
    if (name === 'status') return await status(values, positionals, io, json);
    if (name === 'cancel') return await cancel(values, positionals, io, json);
    return await result(values, positionals, io);
  } catch (err) {
    if (err instanceof UsageError || (err as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) {
      io.err(`docparse ${name}: ${(err as Error).message}`);
      io.err(`usage: ${usage}`);
      return 2;
    }
    if (err instanceof DocparseError) {
      if (json) io.out(JSON.stringify({ error: { status: err.status, code: err.code, detail: err.detail, requestId: err.requestId } }));
      else io.err(`docparse ${name}: ${err.code} (${err.status || 'no response'}): ${err.detail}${err.requestId ? ` [request ${err.requestId}]` : ''}`);
      return 1;
    }
    throw err;
  }
}

async function parse(values: Record<string, unknown>, positionals: string[], io: UserIo, json: boolean): Promise<number> {
  if (positionals.length === 0) throw new UsageError('name at least one file or glob');
  const files = await expandInputs(positionals, io.cwd);
  const client = clientFor(values, io);
  const str = (k: string) => values[k] as string | undefined;
  const options = {
    pdfMode: str('pdf-mode'),
    csvRoute: str('csv-route'),
    sqlDialect: str('sql-dialect'),
    documentType: str('document-type'),
    parquetMode: str('parquet-mode'),
    chunkHints: values['chunk-hints'] as boolean | undefined,
  } as UploadOptions;
  for (const k of Object.keys(options) as (keyof UploadOptions)[]) if (options[k] === undefined) delete options[k];
  const progress = json ? silent : io.stdout.isTTY ? terminalBars(io.stdout, files) : plainLines(terminalOut(io.out));
  let rows;
  try {
    rows = await parseFiles({
      client,
      files,
      cwd: io.cwd,
      options,
      outDir: str('out') ?? null,
      concurrency: values.concurrency === undefined ? 4 : parseCount(str('concurrency')!, '--concurrency', 1),
      progress,
    });
  } finally {
    progress.stop();
  }
  if (!json && !io.stdout.isTTY) io.out('');
  printRows(io.out, rows, json);
  return rows.every((r) => r.status === 'completed') ? 0 : 1;
}

async function status(values: Record<string, unknown>, ids: string[], io: UserIo, json: boolean): Promise<number> {
  if (ids.length === 0) throw new UsageError('name at least one documentId');
  const results = await clientFor(values, io).statusBatch(ids);
  if (json) for (const r of results) io.out(JSON.stringify(r));
  else {
    const rows = results.map((r) =>
      'statusInt' in r
        ? [
            r.documentId,
            r.status,
            r.format,
            r.documentUnits === null ? '-' : String(r.documentUnits),
            r.completedAt ?? '-',
            r.error ? `${r.error.code}: ${r.error.message}` : '',
          ]
        : [r.documentId, 'not found', '-', '-', '-', ''],
    );
    for (const l of table([['DOCUMENT', 'STATUS', 'FORMAT', 'UNITS', 'COMPLETED', 'ERROR'], ...rows])) io.out(l.trimEnd());
  }
  return results.every((r) => 'statusInt' in r) ? 0 : 1;
}

/** Cancels each job in turn; exit 1 when any id was unknown (the others are still cancelled). */
async function cancel(values: Record<string, unknown>, ids: string[], io: UserIo, json: boolean): Promise<number> {
  if (ids.length === 0) throw new UsageError('name at least one documentId');
  const client = clientFor(values, io);
  let failed = false;
  for (const id of ids) {
    try {
      const s = await client.cancel(id);
      if (json) io.out(JSON.stringify(s));
      else if (s.resultDeleted) io.out(`${id}: ${s.status} before the cancel; its result is deleted`);
      else io.out(`${id}: ${s.status}${s.error ? ` (${s.error.code})` : ''}`);
    } catch (err) {
      if (!(err instanceof DocparseError) || err.code !== 'document_not_found') throw err;
      failed = true;
      if (json) io.out(JSON.stringify({ documentId: id, error: { code: err.code, message: err.detail } }));
      else io.err(`${id}: not found`);
    }
  }
  return failed ? 1 : 0;
}

async function result(values: Record<string, unknown>, ids: string[], io: UserIo): Promise<number> {
  if (ids.length !== 1) throw new UsageError('name one documentId');
  const artifact = await clientFor(values, io).result(ids[0]);
  const text = JSON.stringify(artifact, null, 2);
  const out = values.out as string | undefined;
  if (out) await fs.writeFile(out, text + '\n');
  else io.out(text);
  return 0;
}
