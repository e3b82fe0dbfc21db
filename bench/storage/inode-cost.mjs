// What a small job's files cost the kernel on a given filesystem (issue 28): per job, the
// blob store's layout — a job folder holding the upload and the artifact — against two files
// and one file with no folder, on each directory given. Process CPU (user + kernel) per job,
// after the previous round's files were deleted (as retention deletes them), medians.
//
//   node bench/storage/inode-cost.mjs [--dirs /tmp,/mnt/ext4j] [--jobs 3000] [--runs 3] [--bytes 2048]
//
// Why: ext4 mounted without a journal (this VM's root filesystem: "mounted filesystem … without
// journal" in dmesg, no /proc/fs/jbd2 entry) checks every candidate inode for a recent
// deletion when it allocates one (recently_deleted() in find_inode_bit()), so creating a file
// costs more the more files were deleted in the last minutes; a journaled ext4 skips that check.
import fs from 'node:fs';
import path from 'node:path';
import { args, filesystemOf, median } from '../e2e/lib.mjs';

const o = args({ dirs: '/tmp', jobs: 3000, runs: 3, bytes: 2048 });
const body = Buffer.alloc(o.bytes, 'a,b,c\n');
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

const LAYOUTS = {
  'job folder + upload + artifact (the store today)': (d, i) => {
    const f = path.join(d, `j${i}`);
    fs.mkdirSync(f);
    fs.writeFileSync(path.join(f, 'upload'), body);
    fs.writeFileSync(path.join(f, 'artifact.json'), body);
  },
  'upload + artifact, no folder': (d, i) => {
    fs.writeFileSync(path.join(d, `j${i}.upload`), body);
    fs.writeFileSync(path.join(d, `j${i}.artifact.json`), body);
  },
  'one file': (d, i) => fs.writeFileSync(path.join(d, `j${i}.upload`), body),
};

for (const dir of o.dirs.split(',')) {
  const root = fs.mkdtempSync(path.join(dir, 'dp-bench-inodes-'));
  const perLayout = Object.fromEntries(Object.keys(LAYOUTS).map((k) => [k, []]));
  try {
    for (let run = 0; run < o.runs; run++) {
      for (const [name, make] of Object.entries(LAYOUTS)) {
        const d = path.join(root, `r${run}-${Object.keys(LAYOUTS).indexOf(name)}`);
        fs.mkdirSync(d);
        const t0 = cpuMs();
        for (let i = 0; i < o.jobs; i++) make(d, i);
        perLayout[name].push((cpuMs() - t0) / o.jobs);
        fs.rmSync(d, { recursive: true }); // deleted, as retention deletes a job's files
      }
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  console.log(`\n${dir}: ${filesystemOf(dir)}; load ${fs.readFileSync('/proc/loadavg', 'utf8').trim()}`);
  console.log('| files per job | CPU ms per job, runs | median |\n|:--|--:|--:|');
  for (const [name, runs] of Object.entries(perLayout)) console.log(`| ${name} | ${runs.map((v) => v.toFixed(3)).join(' ')} | ${median(runs).toFixed(3)} |`);
}
