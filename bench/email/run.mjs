// MBOX throughput and peak memory on a generated 20,000-message mailbox (built from the
// corpus EML files, cycled, with proper From_ lines and >From escaping).
//   ours      — parseMbox streaming the file and writing the artifact exactly as the worker does
//   baseline  — mailparser alone: the whole file read into memory, split on "\n\nFrom ",
//               simpleParser on each message, nothing written (the naive approach)
// Each run is a fresh child process (peak RSS = its getrusage maxrss).
// Usage: npm run build && node bench/email/run.mjs [--messages=20000] [--repeats=3]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { corpusDir } from '../../test/helpers/corpus-dir.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const arg = (n, d) => Number((process.argv.find((a) => a.startsWith(`--${n}=`)) ?? '').split('=')[1] || process.env[`BENCH_${n.toUpperCase()}`] || d);
const MESSAGES = arg('messages', 20000);
const REPEATS = arg('repeats', 3);
const corpus = corpusDir('email');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dp-bench-mail-'));
const mboxPath = path.join(tmp, `bench-${MESSAGES}.mbox`);

// Build the mailbox.
const emls = fs
  .readdirSync(corpus)
  .filter((f) => f.endsWith('.eml'))
  .sort()
  .map((f) => fs.readFileSync(path.join(corpus, f)).toString('latin1'));
const fd = fs.openSync(mboxPath, 'w');
for (let i = 0; i < MESSAGES; i++) {
  const body = emls[i % emls.length].replace(/\r\n/g, '\n').replace(/^(>*From )/gm, '>$1');
  fs.writeSync(fd, `From bench${i}@example.org Mon Jan  4 10:00:00 2021\n${body}${body.endsWith('\n') ? '' : '\n'}\n`, null, 'latin1');
}
fs.closeSync(fd);
const size = fs.statSync(mboxPath).size;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const runs = { ours: [], baseline: [] };
for (let i = 0; i < REPEATS; i++) {
  for (const mode of i % 2 ? ['baseline', 'ours'] : ['ours', 'baseline']) {
    const outp = execFileSync(process.execPath, [path.join(here, 'child.mjs'), mode, mboxPath, tmp], { encoding: 'utf8', maxBuffer: 1 << 20 });
    const r = JSON.parse(outp.trim().split('\n').pop());
    runs[mode].push(r);
    process.stderr.write(`${mode} run ${i + 1}: ${r.messages} messages in ${r.ms.toFixed(0)} ms, peak RSS ${(r.maxRssKb / 1024).toFixed(0)} MiB\n`);
  }
}
const row = (mode) => {
  const rs = runs[mode];
  const rate = median(rs.map((r) => (r.messages / r.ms) * 1000));
  return { rate, rss: median(rs.map((r) => r.maxRssKb / 1024)), messages: rs[0].messages, artifact: rs[0].artifactBytes };
};
const a = row('ours');
const b = row('baseline');
console.log(`Mailbox: ${MESSAGES} messages, ${(size / 1048576).toFixed(1)} MiB (corpus EML files cycled).\n`);
console.log('| | messages found | messages/s (median) | peak RSS MiB (median) | artifact MiB |');
console.log('|:--|--:|--:|--:|--:|');
console.log(
  `| ours: parseMbox, streamed, artifact written | ${a.messages} | ${a.rate.toFixed(0)} | ${a.rss.toFixed(0)} | ${(a.artifact / 1048576).toFixed(1)} |`,
);
console.log(`| baseline: whole file + naive split + mailparser alone | ${b.messages} | ${b.rate.toFixed(0)} | ${b.rss.toFixed(0)} | – |`);
console.log(`\nRatios ours/baseline: throughput ${(a.rate / b.rate).toFixed(2)}, peak RSS ${(a.rss / b.rss).toFixed(2)}.`);
fs.rmSync(tmp, { recursive: true, force: true });
