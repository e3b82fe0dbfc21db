// PostgreSQL statement lists of this build against another's (--dist), file by file: every
// statement's offsets, terminator and text, the warnings and the psql meta-commands, split
// whole (splitPostgres) and streamed as the worker reads a file (streamStatements). Inputs: the
// corpus's PostgreSQL files (streamed also in passes of 4 KiB), all of them joined three times, and the large-INSERT dumps of the
// large-statement tests (8, 12 and 50 MiB, alone and between other statements; streamed only).
// Prints one line per input and the differences (statements, directives and warnings each
// compared in order); exits 1 when any differs.
// Usage: npm run build && node bench/sql/split-equality.mjs --dist=/tmp/before/dist [--no-large]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { largeInsertDumpPieces } from '../fuzz/generators/sql-large.mjs';
import { corpus, rows } from './corpus.mjs';

const opt = (n) => (process.argv.find((a) => a.startsWith(`--${n}=`)) ?? '').split('=')[1];
if (!opt('dist')) throw new Error('--dist=<the other build’s dist> is required');
const builds = {
  before: path.resolve(opt('dist')),
  after: path.resolve(new URL('../../dist', import.meta.url).pathname),
};
const mods = {};
for (const [name, dist] of Object.entries(builds)) {
  const sql = await import(pathToFileURL(path.join(dist, 'formats/sql/index.js')).href);
  const stream = await import(pathToFileURL(path.join(dist, 'formats/sql/stream.js')).href);
  await sql.loadPostgres();
  mods[name] = { splitPostgres: sql.splitPostgres, streamStatements: stream.streamStatements, detectEncoding: stream.detectEncoding };
}

const hash = (s) => createHash('sha1').update(s).digest('hex').slice(0, 12);

/** The whole-text split as comparable lines. */
function whole(m, text) {
  const r = m.splitPostgres(text);
  return [
    ...r.statements.map((s) => `${s.start}-${s.end} ${s.terminator}/${s.termEnd}${s.psqlCopy ? ' \\copy' : ''} ${hash(text.slice(s.start, s.end))}`),
    ...r.warnings.map((w) => `warning: ${w}`),
    ...(r.extras.psqlMetaCommands ?? []).map((d) => `meta ${d.offset}: ${d.text}`),
  ];
}

/** The streamed split of a file as comparable lines (and the seconds it took); `pieceChars`: how much is split per pass, at least (the worker's default when undefined). */
async function streamed(m, file, pieceChars) {
  const lines = [];
  const enc = await m.detectEncoding(file, fs.statSync(file).size);
  const t0 = performance.now();
  for await (const s of m.streamStatements(file, enc, 'PostgreSql', {
    pieceChars,
    onDirective: (d) => lines.push(`directive ${d.kind} ${d.line}: ${d.text}`),
    onWarning: (w) => lines.push(`warning: ${w}`),
    onProgress: () => {},
  })) {
    lines.push(
      `${s.start.offset}-${s.end.offset} ${s.start.line}:${s.start.column} ${s.raw.terminator} ${s.text.length} ${hash(s.text)} inner ${s.inner.length}`,
    );
  }
  return { lines, seconds: (performance.now() - t0) / 1000 };
}

function diff(a, b) {
  const out = [];
  for (let i = 0; i < Math.max(a.length, b.length) && out.length < 5; i++) if (a[i] !== b[i]) out.push(`  #${i}: before ${a[i]}\n       after  ${b[i]}`);
  return out;
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dp-split-eq-'));
let differ = 0;
let compared = 0;
let statements = 0;
/** Compares statements, directives and warnings (in order each) and prints the differences. */
const report = (name, a, b, extra = '') => {
  compared++;
  const kinds = { statements: (l) => /^\d/.test(l), directives: (l) => /^(directive|meta) /.test(l), warnings: (l) => l.startsWith('warning: ') };
  const out = [];
  for (const [kind, is] of Object.entries(kinds)) {
    const [x, y] = [a.filter(is), b.filter(is)];
    const d = diff(x, y);
    if (d.length) out.push(`  ${kind} (${x.length} before, ${y.length} after):\n${d.join('\n')}`);
  }
  statements += a.filter(kinds.statements).length;
  if (out.length) differ++;
  console.log(
    `${out.length ? 'DIFFERENT' : 'equal    '} ${name}: ${a.filter(kinds.statements).length} statements${extra}${out.length ? `\n${out.join('\n')}` : ''}`,
  );
};

const files = rows.filter((r) => r[4] === 'postgresql').map((r) => r[0]);
const texts = [];
for (const f of files) {
  const file = path.join(corpus, f);
  const text = fs.readFileSync(file, 'utf8');
  texts.push(text);
  report(`${f} (whole)`, whole(mods.before, text), whole(mods.after, text));
  report(`${f} (streamed)`, (await streamed(mods.before, file)).lines, (await streamed(mods.after, file)).lines);
  report(`${f} (streamed in 4 KiB passes)`, (await streamed(mods.before, file, 4096)).lines, (await streamed(mods.after, file, 4096)).lines);
}
const joined = Array(3).fill(texts.join('\n;\n')).join('\n;\n');
const joinedFile = path.join(tmp, 'joined.sql');
fs.writeFileSync(joinedFile, joined);
report('all PostgreSQL files joined, 3× (whole)', whole(mods.before, joined), whole(mods.after, joined));
report('all PostgreSQL files joined, 3× (streamed)', (await streamed(mods.before, joinedFile)).lines, (await streamed(mods.after, joinedFile)).lines);

if (!process.argv.includes('--no-large')) {
  for (const mb of [8, 12, 50]) {
    for (const around of [true, false]) {
      const file = path.join(tmp, `insert-${mb}.sql`);
      const fd = fs.openSync(file, 'w');
      for (const piece of largeInsertDumpPieces({ dialect: 'PostgreSql', mb, around })) fs.writeSync(fd, piece);
      fs.closeSync(fd);
      const a = await streamed(mods.before, file);
      const b = await streamed(mods.after, file);
      report(
        `${mb} MiB INSERT${around ? ' between other statements' : ' alone'} (streamed)`,
        a.lines,
        b.lines,
        `; ${a.seconds.toFixed(1)} s before, ${b.seconds.toFixed(1)} s after`,
      );
      fs.rmSync(file);
    }
  }
}
fs.rmSync(tmp, { recursive: true, force: true });
console.log(`${compared} inputs compared (${statements} statements before), ${differ} different`);
process.exit(differ ? 1 : 0);
