// CPU of the disk blob store's write() for small uploads, each into a new job folder as the
// service stores them (issue 28, third round): this dist against another, alternated.
// Process CPU (all threads, the thread pool's file calls and the kernel's inode allocation
// included), medians.
//
//   node bench/storage/upload-writes.mjs [--other /path/to/other/dist] [--uploads 2000] [--bytes 2048] [--runs 5]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { args, median } from '../e2e/lib.mjs';

const o = args({ other: '', uploads: 2000, bytes: 2048, runs: 5 });
const here = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../dist');
const dists = { this: here, ...(o.other ? { other: path.resolve(o.other) } : {}) };
const stores = {};
for (const [name, dist] of Object.entries(dists)) stores[name] = (await import(path.join(dist, 'storage/disk-blob-store.js'))).DiskBlobStore;
const body = Buffer.alloc(o.bytes, 'a,b,c\n');
const cpu = Object.fromEntries(Object.keys(stores).map((k) => [k, []]));

for (let run = 0; run < o.runs; run++) {
  const order = run % 2 ? Object.keys(stores).reverse() : Object.keys(stores);
  for (const name of order) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dp-bench-uploads-'));
    const store = new stores[name](dir);
    for (let i = 0; i < 200; i++) await store.write(`t/warm${i}/upload`, Readable.from([body]));
    const c0 = process.cpuUsage();
    for (let i = 0; i < o.uploads; i++) await store.write(`t/job${i}/upload`, Readable.from([body]));
    const c = process.cpuUsage(c0);
    cpu[name].push((c.user + c.system) / 1000 / o.uploads);
    fs.rmSync(dir, { recursive: true, force: true });
    console.error(`${name} (${dists[name]}), run ${run + 1}: ${cpu[name].at(-1).toFixed(3)} ms CPU per upload`);
  }
}
console.log(`| dist | ms CPU per ${o.bytes}-byte upload, per run | median |\n|:--|:--|--:|`);
for (const [name, v] of Object.entries(cpu)) console.log(`| ${name} (${dists[name]}) | ${v.map((x) => x.toFixed(3)).join(', ')} | ${median(v).toFixed(3)} |`);
