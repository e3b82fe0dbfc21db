// Build step (npm run build): compiles the PDF text layer's per-character pass and its
// SingleColumn layout (wasm/charpass/charpass.ts and the files it imports, AssemblyScript)
// into dist/wasm/charpass.wasm with the AssemblyScript compiler (a dev dependency, plain JS:
// nothing is downloaded).
// The module lives inside PDFium's memory, so it must own none of it: no allocator (stub
// runtime, and nothing allocates), no data segments, no abort import. The step checks the
// result for that and for the imports it expects, and fails the build otherwise: the parser
// has no other text-layer path.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const source = path.join(root, 'wasm', 'charpass', 'charpass.ts');
const out = path.join(root, 'dist', 'wasm', 'charpass.wasm');

const asc = (await import('assemblyscript/asc')).default;
fs.mkdirSync(path.dirname(out), { recursive: true });
const tmp = `${out}.${process.pid}.tmp`;
const { error, stderr } = await asc.main(
  [path.relative(process.cwd(), source), '--outFile', tmp, '--runtime', 'stub', '--importMemory', '--noAssert', '--use', 'abort=', '-O3', '--noExportMemory'],
  {},
);
if (error) {
  fs.rmSync(tmp, { force: true });
  console.error(stderr.toString());
  console.error(`build-charpass: ${error.message}`);
  process.exit(1);
}

const bytes = fs.readFileSync(tmp);
const mod = new WebAssembly.Module(bytes);
const imports = WebAssembly.Module.imports(mod);
const problems = [];
// Section id 11 is the data section: its presence means static data written into PDFium's heap.
if (sectionIds(bytes).includes(11)) problems.push('it has a data section (static data would be written into PDFium’s memory)');
for (const i of imports) {
  const ok =
    (i.module === 'env' && i.name === 'memory' && i.kind === 'memory') ||
    (i.module === 'pdfium' && i.kind === 'function') ||
    (i.module === 'js' && i.name === 'fontInfo');
  if (!ok) problems.push(`unexpected import ${i.module}.${i.name} (${i.kind})`);
}
if (problems.length) {
  fs.rmSync(tmp, { force: true });
  console.error(`build-charpass: ${problems.join('; ')}`);
  process.exit(1);
}
fs.renameSync(tmp, out);
console.log(`build-charpass: wrote dist/wasm/charpass.wasm (${bytes.length} bytes)`);

/** The ids of a WASM binary's sections, in order. */
function sectionIds(b) {
  const ids = [];
  let p = 8;
  while (p < b.length) {
    ids.push(b[p++]);
    let size = 0,
      shift = 0,
      byte;
    do {
      byte = b[p++];
      size |= (byte & 0x7f) << shift;
      shift += 7;
    } while (byte & 0x80);
    p += size;
  }
  return ids;
}
