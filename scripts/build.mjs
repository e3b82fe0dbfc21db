// The build (npm run build, npm start): TypeScript into dist/, the PDF text layer's
// AssemblyScript pass into dist/wasm/charpass.wasm, PDFium re-optimised into dist/wasm (that
// step checks its own manifest and does nothing when its output is current).
//
// `npm start` runs this without --force: when dist/ was built from exactly the sources there
// are now, it builds nothing. What dist/ was built from is a stamp (dist/.build-stamp.json):
// one SHA-256 per step over its inputs' paths and contents, the compilers' versions and their
// settings. Contents, not mtimes: a checkout or a copy that touches every file changes no
// hash, and an edit that keeps an mtime still does. Any missing output builds that step again.
//
//   node scripts/build.mjs           build the steps whose inputs changed (or whose outputs are missing)
//   node scripts/build.mjs --force   build every step
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stampPath = path.join(root, 'dist', '.build-stamp.json');
const force = process.argv.includes('--force');

const versionOf = (pkg) => {
  try {
    return JSON.parse(fs.readFileSync(require.resolve(`${pkg}/package.json`), 'utf8')).version;
  } catch {
    return 'absent';
  }
};

/** Every file under dir (relative to the repository), sorted, keeping those `keep` accepts. */
function filesUnder(dir, keep) {
  const out = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(path.join(root, d), { withFileTypes: true })) {
      const rel = path.posix.join(d, e.name);
      if (e.isDirectory()) walk(rel);
      else if (keep(rel)) out.push(rel);
    }
  };
  walk(dir);
  return out.sort();
}

const STEPS = [
  {
    name: 'typescript',
    inputs: () => [...filesUnder('src', (f) => f.endsWith('.ts')), 'tsconfig.json'],
    tools: () => ({ typescript: versionOf('typescript') }),
    outputs: ['dist/bin.js', 'dist/pipeline/thread.js', 'dist/pipeline/host-process.js'],
    run: [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.json'],
  },
  {
    name: 'charpass',
    inputs: () => [...filesUnder('wasm/charpass', () => true), 'wasm/build-charpass.mjs'],
    tools: () => ({ assemblyscript: versionOf('assemblyscript') }),
    outputs: ['dist/wasm/charpass.wasm'],
    run: ['wasm/build-charpass.mjs'],
  },
  {
    // Checks its own manifest (source and output hashes, optimiser, flags): a no-op when current.
    name: 'pdfium',
    always: true,
    run: ['wasm/optimize-pdfium.mjs'],
  },
];

function fingerprint(step) {
  const h = crypto.createHash('sha256');
  h.update(JSON.stringify(step.tools()));
  for (const f of step.inputs()) {
    h.update(`\0${f}\0`);
    h.update(fs.readFileSync(path.join(root, f)));
  }
  return h.digest('hex');
}

function readStamp() {
  try {
    return JSON.parse(fs.readFileSync(stampPath, 'utf8'));
  } catch {
    return {};
  }
}

const started = performance.now();
const stamp = readStamp();
const built = [];
for (const step of STEPS) {
  const print = step.always ? null : fingerprint(step);
  const current = !force && !step.always && stamp[step.name] === print && step.outputs.every((o) => fs.existsSync(path.join(root, o)));
  if (current) continue;
  const r = spawnSync(process.execPath, step.run, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`build: ${step.name} failed (${r.signal ?? `exit code ${r.status}`})`);
    process.exit(r.status || 1);
  }
  if (print) {
    // Written after each step, so a later step's failure does not redo this one.
    stamp[step.name] = print;
    fs.mkdirSync(path.dirname(stampPath), { recursive: true });
    fs.writeFileSync(stampPath, `${JSON.stringify(stamp, null, 2)}\n`);
    built.push(step.name);
  }
}
const ms = Math.round(performance.now() - started);
console.log(built.length ? `build: built ${built.join(', ')} in ${ms} ms` : `build: dist/ is current (checked in ${ms} ms)`);
