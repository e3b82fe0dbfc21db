// Issue 28 item 3: what a node holds in memory.
//
// Idle: starts a node (bench/e2e/server.mjs: startNode from dist, fresh data dir) in each mode,
// waits --wait seconds, reads the resident set (VmRSS, /proc/<pid>/status) of the node and of
// its parsing process (and anything else under it), --runs times; prints medians.
//
// --busy: per family, a fresh node with one parsing thread; one job of that family (a file of
// the corpus when there is one, else a small built-in sample), with the parsing process's RSS
// sampled every 20 ms. Reports the thread's cost: the process's peak and settled RSS (right
// after completion) minus its idle RSS before the job.
//
//   node bench/e2e/idle-rss.mjs [--mode embedded|redis|both] [--runs 3] [--wait 20] [--busy]
import fs from 'node:fs';
import path from 'node:path';
import { args, startBenchServer, processTree, client, getToken, smallCsv, sleep, median, fmt, uptimeLine } from './lib.mjs';
import { CORPUS_DIR, CORPUS_AVAILABLE } from '../../test/helpers/corpus-dir.mjs';

const o = args({ mode: 'both', runs: 3, wait: 20, busy: 'false', families: '' });
const modes = o.mode === 'both' ? ['embedded', 'redis'] : [o.mode];

/** { rss, anon, file } in MB from /proc/<pid>/status; null when the process is gone. */
function memOf(pid) {
  try {
    const s = fs.readFileSync(`/proc/${pid}/status`, 'latin1');
    // A process that is exiting (a zombie) has no memory lines: it holds none.
    const kb = (k) => Number(new RegExp(`${k}:\\s+(\\d+) kB`).exec(s)?.[1] ?? 0) / 1024;
    return { rss: kb('VmRSS'), anon: kb('RssAnon'), file: kb('RssFile') };
  } catch {
    return null;
  }
}

/** The node's process and the rest of its tree (its parsing process), each with its memory. */
function treeMemory(pid) {
  const [, ...children] = processTree(pid);
  const node = memOf(pid);
  const kids = children.map(memOf).filter(Boolean);
  const parser = kids.reduce((s, m) => s + m.rss, 0);
  return { node: node.rss, nodeAnon: node.anon, nodeFile: node.file, parser, children: kids.length, total: node.rss + parser };
}

async function idle(mode) {
  const rows = [];
  for (let run = 1; run <= o.runs; run++) {
    const server = await startBenchServer(mode);
    try {
      await sleep(o.wait * 1000);
      const m = treeMemory(server.pid);
      rows.push(m);
      console.log(
        `${mode} run ${run}: node ${fmt(m.node)} MB (anon ${fmt(m.nodeAnon)}, file ${fmt(m.nodeFile)}), parsing process ${fmt(m.parser)} MB (${m.children} process), total ${fmt(m.total)} MB`,
      );
    } finally {
      await server.stop();
    }
  }
  const med = (k) => median(rows.map((r) => r[k]));
  return { mode, node: med('node'), parser: med('parser'), total: med('total'), runs: rows.map((r) => Math.round(r.total)) };
}

// ── Busy: one job of each family ───────────────────────────────────────────────────────────

const corpusFile = (family, name) => {
  const f = path.join(CORPUS_DIR, family, name);
  return CORPUS_AVAILABLE && fs.existsSync(f) ? { name, body: fs.readFileSync(f) } : null;
};

const withQuery = (sample, query) => (sample ? { ...sample, query } : null);

/** A sample per family: a mid-sized corpus file, else a small built-in one (none for binary formats). */
const SAMPLES = {
  csv: () => ({ name: 'small.csv', body: Buffer.from(smallCsv(2000)), query: '&csvRoute=Tabular' }),
  pdf: () => withQuery(corpusFile('pdf', 'pdfjs__tracemonkey.pdf'), '&pdfMode=SingleColumn'),
  'pdf-ocr': () => withQuery(corpusFile('pdf', 'generated__scanned-3p.pdf'), '&pdfMode=Ocr'),
  office: () => corpusFile('office', 'tika__testWORD_embeded.docx'),
  email: () =>
    corpusFile('email', 'mailparser__nodemailer.eml') ?? {
      name: 'note.eml',
      body: Buffer.from('From: a@example.com\r\nTo: b@example.com\r\nSubject: hello\r\nContent-Type: text/plain\r\n\r\nHello there.\r\n'),
    },
  sql: () =>
    withQuery(
      corpusFile('sql', 'pg__insert.sql') ?? {
        name: 'small.sql',
        body: Buffer.from("CREATE TABLE t (id int, name text);\nINSERT INTO t VALUES (1, 'a'), (2, 'b');\n"),
      },
      '&sqlDialect=PostgreSql',
    ),
  gis: () =>
    corpusFile('gis', 'geojson_grenada.geojson') ?? {
      name: 'points.geojson',
      body: Buffer.from(
        JSON.stringify({ type: 'FeatureCollection', features: [{ type: 'Feature', properties: { n: 1 }, geometry: { type: 'Point', coordinates: [1, 2] } }] }),
      ),
    },
  cad: () => corpusFile('cad', 'dwg_example_2004.dwg') ?? corpusFile('cad', 'dxf_assorted.dxf'),
  parquet: () => withQuery(corpusFile('parquet', 'pqt_alltypes_plain.parquet'), '&parquetMode=MetadataPlusRows'),
};

async function runOneJob(server, sample) {
  const c = client(server.url);
  try {
    const token = await getToken(c, server.clientId, server.clientSecret);
    const auth = { authorization: `Bearer ${token}` };
    const id = `rss-${process.pid}-${Date.now()}`;
    const r = await c.request('POST', `/api/v1/documents/upload?fileName=${encodeURIComponent(sample.name)}&documentId=${id}${sample.query ?? ''}`, {
      headers: { ...auth, 'content-type': 'application/octet-stream' },
      body: sample.body,
    });
    if (r.status !== 202) throw new Error(`upload ${sample.name}: ${r.status} ${r.text}`);
    for (;;) {
      const s = await c.request('POST', '/api/v1/documents/status/batch', {
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ documentIds: [id] }),
      });
      const st = s.json?.results?.[0];
      if (st?.statusInt === 8) return 'completed';
      if (st?.statusInt === 9) return `failed: ${st.errorMessage ?? st.error ?? JSON.stringify(st)}`;
      await sleep(50);
    }
  } finally {
    c.close();
  }
}

async function busy(mode, family) {
  const sample = SAMPLES[family]();
  if (!sample) return { family, skipped: 'no sample (the corpus is not here)' };
  const rows = [];
  for (let run = 1; run <= o.runs; run++) {
    const server = await startBenchServer(mode, { DOCPARSE_WORKER_THREADS: '1', DOCPARSE_HEAVY_SLOTS: '1' });
    try {
      await sleep(Math.min(o.wait, 5) * 1000);
      const before = treeMemory(server.pid);
      let peak = before.parser;
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          peak = Math.max(peak, treeMemory(server.pid).parser);
          await sleep(20);
        }
      })();
      const outcome = await runOneJob(server, sample);
      sampling = false;
      await sampler;
      const after = treeMemory(server.pid);
      rows.push({ idle: before.parser, peak: peak - before.parser, settled: after.parser - before.parser, node: after.node - before.node });
      console.log(
        `${mode} ${family} run ${run} (${sample.name}): ${outcome}; parsing process idle ${fmt(before.parser)} MB, +${fmt(peak - before.parser)} MB at peak, +${fmt(after.parser - before.parser)} MB after; node +${fmt(after.node - before.node)} MB`,
      );
    } finally {
      await server.stop();
    }
  }
  const med = (k) => median(rows.map((r) => r[k]));
  return { family, sample: sample.name, idle: med('idle'), peak: med('peak'), settled: med('settled'), node: med('node') };
}

console.log(`# idle-rss ${new Date().toISOString()} load ${uptimeLine()} runs ${o.runs} wait ${o.wait}s`);
for (const mode of modes) {
  if (o.busy === 'true') {
    const families = o.families ? o.families.split(',') : Object.keys(SAMPLES);
    const results = [];
    for (const f of families) results.push(await busy(mode, f));
    console.log(`\n${mode}: RSS of one busy parsing thread per family (medians of ${o.runs}; MB over the idle parsing process)`);
    console.log('| family | sample | parsing process idle | + at peak | + after the job | node + |');
    console.log('|---|---|---|---|---|---|');
    for (const r of results) {
      if (r.skipped) console.log(`| ${r.family} | ${r.skipped} | | | | |`);
      else console.log(`| ${r.family} | ${r.sample} | ${fmt(r.idle)} | ${fmt(r.peak)} | ${fmt(r.settled)} | ${fmt(r.node)} |`);
    }
  } else {
    const r = await idle(mode);
    console.log(`${mode}: median node ${fmt(r.node)} MB, parsing process ${fmt(r.parser)} MB, total ${fmt(r.total)} MB (runs: ${r.runs.join(', ')})`);
  }
}
console.log(`# load after ${uptimeLine()}`);
