// CPU of the node's disk blob store calls for one small job (issue 28): the upload written into
// a new job folder, the upload's local path for the parse, and the artifact taken into the
// store — putFile from the scratch folder where the store has no fileFor, nothing where the
// parse writes it in place. The artifacts a parse would write are made before the measured
// loop (the parsing process's cost, not the node's). This dist against another, alternated.
// Process CPU (all threads: the thread pool's file calls and the kernel's included), medians.
//
//   node bench/storage/job-store-calls.mjs [--other /path/to/other/dist] [--jobs 2000] [--bytes 2048] [--runs 5]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { args, median } from '../e2e/lib.mjs';

const o = args({ other: '', jobs: 2000, bytes: 2048, runs: 5 });
const here = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../dist');
const dists = { this: here, ...(o.other ? { other: path.resolve(o.other) } : {}) };
const stores = {};
for (const [name, dist] of Object.entries(dists)) stores[name] = (await import(path.join(dist, 'storage/disk-blob-store.js'))).DiskBlobStore;
const body = Buffer.alloc(o.bytes, 'a,b,c\n');
const artifact = Buffer.alloc(o.bytes * 2, '{}');
const cpu = Object.fromEntries(Object.keys(stores).map((k) => [k, []]));

async function oneJob(store, i, scratch) {
  const folder = `jobs/t/doc${i}.g`;
  await store.write(`${folder}/upload`, Readable.from([body]));
  const input = await store.localPath(`${folder}/upload`);
  await input.release();
  if (!store.fileFor) await store.putFile(`${folder}/artifact.json`, path.join(scratch, `${i}.artifact.json`), { writtenPrivate: artifact.length });
}

/** What the parsing process writes: in the job's folder when the store has fileFor, else in scratch. */
function parseOutputs(store, root, scratch, from, to) {
  for (let i = from; i < to; i++) {
    if (store.fileFor) {
      fs.mkdirSync(path.join(root, `jobs/t/doc${i}.g`), { recursive: true, mode: 0o700 });
      fs.writeFileSync(store.fileFor(`jobs/t/doc${i}.g/artifact.r${i}.json`), artifact, { mode: 0o600 });
    } else {
      fs.writeFileSync(path.join(scratch, `${i}.artifact.json`), artifact, { mode: 0o600 });
    }
  }
}

for (let run = 0; run < o.runs; run++) {
  const order = run % 2 ? Object.keys(stores).reverse() : Object.keys(stores);
  for (const name of order) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dp-bench-jobcalls-'));
    const root = path.join(dir, 'blobs');
    const scratch = path.join(dir, 'work');
    fs.mkdirSync(scratch);
    const store = new stores[name](root);
    parseOutputs(store, root, scratch, 0, 200);
    for (let i = 0; i < 200; i++) await oneJob(store, i, scratch);
    // In place, the job folders exist before the upload's write only here (made for the files
    // above): the measured jobs' folders are new, as in the service, and their artifacts are
    // made after their uploads.
    const first = 200;
    const c0 = process.cpuUsage();
    for (let i = first; i < first + o.jobs; i++) {
      if (store.fileFor) {
        await oneJob(store, i, scratch);
        const t = process.cpuUsage();
        parseOutputs(store, root, scratch, i, i + 1);
        const spent = process.cpuUsage(t);
        c0.user += spent.user;
        c0.system += spent.system;
      } else {
        const t = process.cpuUsage();
        parseOutputs(store, root, scratch, i, i + 1);
        const spent = process.cpuUsage(t);
        c0.user += spent.user;
        c0.system += spent.system;
        await oneJob(store, i, scratch);
      }
    }
    const c = process.cpuUsage(c0);
    cpu[name].push((c.user + c.system) / 1000 / o.jobs);
    console.error(`${name} (${dists[name]}), run ${run + 1}: ${cpu[name].at(-1).toFixed(3)} ms CPU per job`);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
console.log('| dist | ms CPU per small job (store calls of the node), per run | median |');
console.log('|:--|:--|--:|');
for (const [name, xs] of Object.entries(cpu))
  console.log(`| ${name} (${dists[name]}) | ${xs.map((x) => x.toFixed(3)).join(', ')} | ${median(xs).toFixed(3)} |`);
