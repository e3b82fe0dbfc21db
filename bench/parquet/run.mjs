// Parquet benchmark (issue 7): MetadataOnly ms per file (corpus and a ≥ 50 MB file) and
// MetadataPlusRows rows/s with peak RSS on the large file, against reading it whole with
// hyparquet (readFile → parquetReadObjects → JSON per row). Each measurement runs in its own
// child process so peak RSS (getrusage maxrss) is its own. Runs the compiled parser in dist/
// (`npm run build` first). Writes bench/results/parquet.md.
//
//   node bench/parquet/run.mjs [--rounds 3] [--rows 1500000]
import { execFileSync, execSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { corpusDir } from '../../test/helpers/corpus-dir.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CORPUS = corpusDir('parquet');
const arg = (name, dflt) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : dflt);
const imp = (p) => import(pathToFileURL(path.join(ROOT, p)).href);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (n, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : String(n));

// ---------------------------------------------------------------- child mode
if (process.argv[2] === '--child') {
  const [, , , way, file] = process.argv;
  const t0 = performance.now();
  let rows = 0;
  if (way === 'ours-meta' || way === 'ours-rows') {
    const { parseParquet } = await imp('dist/formats/parquet/index.js');
    const { JsonWriter } = await imp('dist/formats/kit/json-writer.js');
    const { DEFAULT_PARSER_SETTINGS } = await imp('dist/formats/settings.js');
    const out = createWriteStream('/dev/null');
    await once(out, 'open');
    const w = new JsonWriter(out);
    w.beginObject().key('content');
    const o = await parseParquet(
      {
        filePath: file,
        fileName: path.basename(file),
        format: 'parquet',
        options: { parquetMode: way === 'ours-rows' ? 'MetadataPlusRows' : 'MetadataOnly' },
        settings: DEFAULT_PARSER_SETTINGS,
        tempDir: tmpdir(),
        progress() {},
      },
      w,
    );
    w.endObject();
    await w.finish();
    out.end();
    await once(out, 'finish');
    rows = o.metadata.rowsWritten ?? 0;
  } else if (way === 'whole-meta' || way === 'whole-rows') {
    const { parquetMetadata, parquetReadObjects } = await import('hyparquet');
    const { compressors } = await import('hyparquet-compressors');
    const buf = readFileSync(file);
    const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
    const md = parquetMetadata(ab);
    if (way === 'whole-rows') {
      const all = await parquetReadObjects({ file: ab, metadata: md, compressors });
      const out = createWriteStream('/dev/null');
      let chunk = '';
      for (const r of all) {
        chunk += JSON.stringify(r, (k, v) => (typeof v === 'bigint' ? v.toString() : v)) + ',';
        if (chunk.length > 65536) {
          if (!out.write(chunk)) await once(out, 'drain');
          chunk = '';
        }
        rows++;
      }
      out.end(chunk);
      await once(out, 'finish');
    }
  }
  const ms = performance.now() - t0;
  // Peak RSS of this process image: VmHWM (getrusage maxrss would include the parent's RSS at
  // fork, which Linux carries across exec).
  const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  process.stdout.write(JSON.stringify({ ms, rows, maxRssMiB: hwm ? Number(hwm[1]) / 1024 : process.resourceUsage().maxRSS / 1024 }) + '\n');
  process.exit(0);
}

// ---------------------------------------------------------------- driver
const rounds = Number(arg('--rounds', '3'));
const nRows = Number(arg('--rows', '1500000'));
const dataDir = path.join(tmpdir(), 'docparse-bench-parquet');
mkdirSync(dataDir, { recursive: true });
const big = path.join(dataDir, `big-${nRows}.parquet`);

if (!existsSync(big)) {
  // A ≥ 50 MB file: 1.5 M rows, 15 row groups of 100 000, SNAPPY, five columns of varied types.
  const { parquetWriteFile } = await import('hyparquet-writer');
  let seed = 42;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const id = new Array(nRows);
  const x = new Float64Array(nRows);
  const y = new Float64Array(nRows);
  const name = new Array(nRows);
  const ts = new Array(nRows);
  const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'];
  for (let i = 0; i < nRows; i++) {
    id[i] = BigInt(i) * 7919n + 9007199254740000n; // crosses 2^53: rendered as strings past it
    x[i] = rnd() * 360 - 180;
    y[i] = rnd() * 180 - 90;
    name[i] = `${words[i % 10]}-${Math.floor(rnd() * 1e9).toString(36)}-${Math.floor(rnd() * 1e9).toString(36)}`;
    ts[i] = new Date(1.6e12 + Math.floor(rnd() * 1e11));
  }
  parquetWriteFile({
    filename: big,
    columnData: [
      { name: 'id', data: id, type: 'INT64' },
      { name: 'x', data: x, type: 'DOUBLE' },
      { name: 'y', data: y, type: 'DOUBLE' },
      { name: 'name', data: name, type: 'STRING' },
      { name: 'ts', data: ts, type: 'TIMESTAMP' },
    ],
    rowGroupSize: 100000,
  });
}
const bigSize = statSync(big).size;

function child(way, file) {
  const out = execFileSync(process.execPath, ['--max-old-space-size=4096', fileURLToPath(import.meta.url), '--child', way, file], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  return JSON.parse(out.trim().split('\n').pop());
}
function measure(way, file, n = rounds) {
  const runs = [];
  for (let i = 0; i < n; i++) runs.push(child(way, file));
  return { ms: median(runs.map((r) => r.ms)), rss: median(runs.map((r) => r.maxRssMiB)), rows: runs[0].rows, runs };
}

// Corpus MetadataOnly: in-process timing per file (after a warm-up), median of rounds.
const { parseParquet } = await imp('dist/formats/parquet/index.js');
const { DEFAULT_PARSER_SETTINGS: PARSER_SETTINGS } = await imp('dist/formats/settings.js');
const { JsonWriter } = await imp('dist/formats/kit/json-writer.js');
const { parquetMetadata } = await import('hyparquet');
async function oursMetaInProcess(file) {
  const out = createWriteStream('/dev/null');
  await once(out, 'open');
  const w = new JsonWriter(out);
  w.beginObject().key('content');
  await parseParquet(
    { filePath: file, fileName: path.basename(file), format: 'parquet', options: {}, settings: PARSER_SETTINGS, tempDir: tmpdir(), progress() {} },
    w,
  );
  w.endObject();
  await w.finish();
  out.end();
  await once(out, 'finish');
}
const corpusFiles = readdirSync(CORPUS)
  .filter((f) => f.endsWith('.parquet') && !f.startsWith('bad_'))
  .map((f) => path.join(CORPUS, f));
for (const f of corpusFiles) await oursMetaInProcess(f); // warm-up
const corpusOurs = [];
const corpusWhole = [];
for (let r = 0; r < Math.max(rounds, 5); r++) {
  let t = performance.now();
  for (const f of corpusFiles) await oursMetaInProcess(f);
  corpusOurs.push((performance.now() - t) / corpusFiles.length);
  t = performance.now();
  for (const f of corpusFiles) {
    const b = readFileSync(f);
    parquetMetadata(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
  }
  corpusWhole.push((performance.now() - t) / corpusFiles.length);
}

// Large file MetadataOnly, in-process (warm): footer-only positioned reads vs reading the whole file.
const bigOurs = [];
const bigWhole = [];
for (let r = 0; r < Math.max(rounds, 5); r++) {
  let t = performance.now();
  await oursMetaInProcess(big);
  bigOurs.push(performance.now() - t);
  t = performance.now();
  const b = readFileSync(big);
  parquetMetadata(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
  bigWhole.push(performance.now() - t);
}
const oursMeta = measure('ours-meta', big);
const wholeMeta = measure('whole-meta', big);
const oursRows = measure('ours-rows', big);
const wholeRows = measure('whole-rows', big);

const load = loadavg()
  .map((x) => x.toFixed(2))
  .join(' ');
const date = execSync('date -u').toString().trim();
const rps = (m) => (m.rows * 1000) / m.ms;
const md = `# Parquet benchmark

- Date: ${date}
- Command: \`npm run build && node bench/parquet/run.mjs --rounds ${rounds} --rows ${nRows}\`
- Machine load (uptime load averages 1/5/15 min) at the end: ${load}
- Node ${process.version}; hyparquet 1.31.5 + hyparquet-compressors 1.1.2 (both sides). Large file generated by hyparquet-writer 0.17.0:
  ${nRows.toLocaleString('en')} rows, ${Math.ceil(nRows / 100000)} row groups of 100 000, SNAPPY, columns id INT64 (crossing 2^53), x/y DOUBLE, name STRING, ts TIMESTAMP_MILLIS; **${fmt(bigSize / 2 ** 20, 1)} MiB**.
- Each large-file figure is the median of ${rounds} runs, each in a fresh child process (peak RSS = VmHWM of that process, includes Node's own ~40 MiB). Output goes to /dev/null.

## MetadataOnly

| file(s) | docparse (footer only, positioned reads) | baseline: read whole file + hyparquet parquetMetadata (metadata only, no artifact) | ratio |
|---|---|---|---|
| ${corpusFiles.length} corpus files, ms per file (in-process, median of ${Math.max(rounds, 5)} rounds) | ${fmt(median(corpusOurs), 2)} ms incl. the full metadata artifact | ${fmt(median(corpusWhole), 2)} ms | ${fmt(median(corpusOurs) / median(corpusWhole), 2)} |
| ${fmt(bigSize / 2 ** 20, 0)} MiB file, in-process (warm), median of ${Math.max(rounds, 5)} | ${fmt(median(bigOurs), 2)} ms | ${fmt(median(bigWhole), 2)} ms | ${fmt(median(bigOurs) / median(bigWhole), 3)} |
| ${fmt(bigSize / 2 ** 20, 0)} MiB file, whole process run (start-up and imports included) | ${fmt(oursMeta.ms, 1)} ms, peak RSS ${fmt(oursMeta.rss, 0)} MiB | ${fmt(wholeMeta.ms, 1)} ms, peak RSS ${fmt(wholeMeta.rss, 0)} MiB | ${fmt(oursMeta.ms / wholeMeta.ms, 2)} time, ${fmt(oursMeta.rss / wholeMeta.rss, 2)} RSS |

- The corpus baseline only decodes an in-memory footer (the files are tiny, so reading them whole costs nothing); the docparse figure includes opening the file, the positioned reads, describing schema, row groups, statistics and geo metadata, and writing the artifact JSON. On the large file, reading only the footer is what counts.

## MetadataPlusRows on the ${fmt(bigSize / 2 ** 20, 0)} MiB file

| way | rows | time (ms) | rows/s | peak RSS (MiB) |
|---|---|---|---|---|
| docparse MetadataPlusRows: row group by row group, rows rendered losslessly and streamed through the JsonWriter | ${oursRows.rows} | ${fmt(oursRows.ms, 0)} | ${fmt(rps(oursRows), 0)} | ${fmt(oursRows.rss, 0)} |
| baseline: readFile whole + parquetReadObjects (all rows) + JSON.stringify per row | ${wholeRows.rows} | ${fmt(wholeRows.ms, 0)} | ${fmt(rps(wholeRows), 0)} | ${fmt(wholeRows.rss, 0)} |
| ratio docparse / baseline | | ${fmt(oursRows.ms / wholeRows.ms, 2)} | ${fmt(rps(oursRows) / rps(wholeRows), 2)} | ${fmt(oursRows.rss / wholeRows.rss, 2)} |

Runs (ms / peak RSS MiB): docparse rows ${oursRows.runs.map((r) => `${fmt(r.ms, 0)}/${fmt(r.maxRssMiB, 0)}`).join(', ')}; baseline rows ${wholeRows.runs.map((r) => `${fmt(r.ms, 0)}/${fmt(r.maxRssMiB, 0)}`).join(', ')}.

## Quality (corpus, tests in test/formats/parquet)

- Footer facts equal the MANIFEST for every file whose footer decodes (num_rows, row groups, schema elements, codecs, key-value keys, created_by).
- Full reads succeed where the MANIFEST's hyparquet full read succeeds, with the same row counts; the 3 files whose full read fails there fail here with an ExtractionError naming the row group
  (pqt_large_string_map.brotli: refused up front, its row group is 2 GiB uncompressed).
- Codecs read: UNCOMPRESSED, SNAPPY, GZIP (incl. concatenated members), ZSTD, BROTLI, LZ4 (Hadoop and raw framing), LZ4_RAW.
`;
mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
writeFileSync(path.join(ROOT, 'bench/results/parquet.md'), md);
process.stdout.write(md);
