// The build re-optimises PDFium's WASM (wasm/optimize-pdfium.mjs); the loader must run that
// copy only when it was made from the installed package binary, fall back to the package's
// own when told to, and both must extract the same document identically. Each case runs in a
// child process: the choice is made once per process and reads the environment.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { corpusPath } from './helpers.js';

vi.setConfig({ testTimeout: 120_000 });
const require = createRequire(import.meta.url);
const root = fileURLToPath(new URL('../../../', import.meta.url));
const loader = `${root}dist/formats/pdf/pdfium-loader.js`;

/** Runs `body` (an ES module body with `pdfiumBinary` and `extract(file)` in scope) in a child node. */
function child(body: string, env: Record<string, string> = {}): any {
  const script = `
    import { pdfiumBinary } from ${JSON.stringify(loader)};
    import { parsePdf } from ${JSON.stringify(`${root}dist/formats/pdf/index.js`)};
    import { writeArtifact } from ${JSON.stringify(`${root}dist/pipeline/thread.js`)};
    import fs from 'node:fs'; import os from 'node:os'; import path from 'node:path';
    async function extract(file, mode) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pdfium-bin-'));
      const out = path.join(dir, 'a.json');
      const r = await writeArtifact({ documentId: 'd', fileName: 'f.pdf', format: 'pdf', options: { pdfMode: mode }, customMetadata: null, inputPath: file, artifactPath: out, tempDir: dir }, async () => parsePdf);
      const text = r.ok ? fs.readFileSync(out, 'utf8') : r.code;
      fs.rmSync(dir, { recursive: true, force: true });
      return text;
    }
    ${body}`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, ...env }, encoding: 'utf8', maxBuffer: 64 << 20 });
  return JSON.parse(out);
}

describe('PDFium binary', () => {
  it('runs the optimised build the test command made, which records the package binary it came from', () => {
    const got = child('console.log(JSON.stringify(pdfiumBinary()));', { DOCPARSE_PDFIUM_OPTIMIZED: '' });
    expect(got).toEqual({ path: `${root}dist/wasm/pdfium.wasm`, optimized: true });
    const manifest = JSON.parse(fs.readFileSync(`${root}dist/wasm/pdfium.json`, 'utf8'));
    const pkg = fs.readFileSync(require.resolve('@embedpdf/pdfium/pdfium.wasm'));
    expect(manifest.sourceSha256).toBe(crypto.createHash('sha256').update(pkg).digest('hex'));
    expect(manifest.optimizer).toMatch(/^binaryen@\d+/);
    expect(fs.readFileSync(got.path).equals(pkg)).toBe(false);
  });

  it('DOCPARSE_PDFIUM_OPTIMIZED=false runs the package binary and says why', () => {
    const got = child('console.log(JSON.stringify(pdfiumBinary()));', { DOCPARSE_PDFIUM_OPTIMIZED: 'false' });
    expect(got.optimized).toBe(false);
    expect(got.path).toBe(require.resolve('@embedpdf/pdfium/pdfium.wasm'));
    expect(got.reason).toContain('DOCPARSE_PDFIUM_OPTIMIZED=false');
  });

  it('both binaries give byte-identical artifacts (text page, tables, page render for OCR)', () => {
    const body = `console.log(JSON.stringify({
      bin: pdfiumBinary().optimized,
      single: await extract(${JSON.stringify(corpusPath('pdf', 'pdfjs__tracemonkey.pdf'))}, 'SingleColumn'),
      advanced: await extract(${JSON.stringify(corpusPath('pdf', 'camelot__eu-001.pdf'))}, 'Advanced'),
      ocr: await extract(${JSON.stringify(corpusPath('pdf', 'camelot__image.pdf'))}, 'Ocr'),
    }));`;
    const opt = child(body, { DOCPARSE_PDFIUM_OPTIMIZED: 'true' });
    const pkg = child(body, { DOCPARSE_PDFIUM_OPTIMIZED: 'false' });
    expect([opt.bin, pkg.bin]).toEqual([true, false]);
    for (const k of ['single', 'advanced', 'ocr']) {
      expect(opt[k].length, k).toBeGreaterThan(1000);
      expect(opt[k], k).toBe(pkg[k]);
    }
    expect(JSON.parse(opt.ocr).content.pages[0].textSource).toBe('ocr');
  });
});
