// The build re-optimises PDFium's WASM (wasm/optimize-pdfium.mjs); the loader must run that
// copy only when it was made from the installed package binary, fall back to the package's
// own when told to, and both must extract the same document identically. Each case runs in a
// child process (a thread keeps the PDFium it instantiated first), configured as a node is:
// loadConfig reads DOCPARSE_PDFIUM_OPTIMIZED, and the settings reach the loader and parser.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { corpusPath } from './helpers.js';
import { choosePdfiumBinary } from '../../../src/formats/pdf/pdfium-loader.js';

vi.setConfig({ testTimeout: 120_000 });
const require = createRequire(import.meta.url);
const root = fileURLToPath(new URL('../../../', import.meta.url));
const loader = `${root}dist/formats/pdf/pdfium-loader.js`;

/**
 * Runs `body` (an ES module body with `binary()` and `extract(file)` in scope) in a child node
 * whose parser settings come from loadConfig(`env`).
 */
function child(body: string, env: Record<string, string> = {}): any {
  const script = `
    import { pdfiumBinary } from ${JSON.stringify(loader)};
    import { loadConfig } from ${JSON.stringify(`${root}dist/config.js`)};
    const settings = loadConfig(${JSON.stringify(env)}).parsers;
    const binary = () => pdfiumBinary(settings.pdf.optimizedPdfium);
    import { parsePdf } from ${JSON.stringify(`${root}dist/formats/pdf/index.js`)};
    import { writeArtifact } from ${JSON.stringify(`${root}dist/pipeline/thread.js`)};
    import fs from 'node:fs'; import os from 'node:os'; import path from 'node:path';
    async function extract(file, mode) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pdfium-bin-'));
      const out = path.join(dir, 'a.json');
      const r = await writeArtifact({ documentId: 'd', fileName: 'f.pdf', format: 'pdf', options: { pdfMode: mode }, customMetadata: null, inputPath: file, artifactPath: out, tempDir: dir }, async () => parsePdf, settings);
      const text = r.ok ? fs.readFileSync(out, 'utf8') : r.code;
      fs.rmSync(dir, { recursive: true, force: true });
      return text;
    }
    ${body}`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', maxBuffer: 64 << 20 });
  return JSON.parse(out);
}

describe('PDFium binary', () => {
  it('runs the optimised build the test command made, which records the package binary it came from', () => {
    const got = child('console.log(JSON.stringify(binary()));', { DOCPARSE_PDFIUM_OPTIMIZED: '' });
    expect(got).toEqual({ path: `${root}dist/wasm/pdfium.wasm`, optimized: true });
    const manifest = JSON.parse(fs.readFileSync(`${root}dist/wasm/pdfium.json`, 'utf8'));
    const pkg = fs.readFileSync(require.resolve('@embedpdf/pdfium/pdfium.wasm'));
    expect(manifest.sourceSha256).toBe(crypto.createHash('sha256').update(pkg).digest('hex'));
    expect(manifest.outputSha256).toBe(crypto.createHash('sha256').update(fs.readFileSync(got.path)).digest('hex'));
    expect(manifest.optimizer).toMatch(/^binaryen@\d+/);
    expect(fs.readFileSync(got.path).equals(pkg)).toBe(false);
  });

  it('DOCPARSE_PDFIUM_OPTIMIZED=false runs the package binary and says why', () => {
    const got = child('console.log(JSON.stringify(binary()));', { DOCPARSE_PDFIUM_OPTIMIZED: 'false' });
    expect(got.optimized).toBe(false);
    expect(got.path).toBe(require.resolve('@embedpdf/pdfium/pdfium.wasm'));
    expect(got.reason).toContain('DOCPARSE_PDFIUM_OPTIMIZED=false');
  });

  it('both binaries give byte-identical artifacts (text page, tables, page render for OCR)', () => {
    const body = `console.log(JSON.stringify({
      bin: binary().optimized,
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

  describe('choice between the two binaries', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pdfium-choice-'));
    afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
    const pkg = path.join(dir, 'package.wasm');
    const optDir = path.join(dir, 'dist-wasm');
    const sha = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');
    /** A package binary and an "optimised" copy with its manifest (bytes stand in for modules). */
    function setUp(manifest: (src: Buffer, out: Buffer) => object) {
      fs.rmSync(optDir, { recursive: true, force: true });
      fs.mkdirSync(optDir, { recursive: true });
      const src = Buffer.from('package binary');
      const out = Buffer.from('optimised binary');
      fs.writeFileSync(pkg, src);
      fs.writeFileSync(path.join(optDir, 'pdfium.wasm'), out);
      fs.writeFileSync(path.join(optDir, 'pdfium.json'), JSON.stringify(manifest(src, out)));
    }

    it('takes the optimised copy when its manifest names both binaries', () => {
      setUp((src, out) => ({ sourceSha256: sha(src), outputSha256: sha(out) }));
      expect(choosePdfiumBinary(pkg, optDir, true)).toEqual({ path: path.join(optDir, 'pdfium.wasm'), optimized: true });
    });

    it('keeps the package binary when the copy was made from another package binary (a dependency update)', () => {
      setUp((_src, out) => ({ sourceSha256: sha(Buffer.from('older package binary')), outputSha256: sha(out) }));
      const got = choosePdfiumBinary(pkg, optDir, true);
      expect(got).toMatchObject({ path: pkg, optimized: false });
      expect(got.reason).toMatch(/another @embedpdf\/pdfium binary/);
    });

    it('keeps the package binary when the copy does not match its manifest (damaged or replaced)', () => {
      setUp((src) => ({ sourceSha256: sha(src), outputSha256: sha(Buffer.from('something else')) }));
      expect(choosePdfiumBinary(pkg, optDir, true)).toMatchObject({
        path: pkg,
        optimized: false,
        reason: expect.stringMatching(/does not match its manifest/),
      });
      fs.rmSync(path.join(optDir, 'pdfium.wasm'));
      expect(choosePdfiumBinary(pkg, optDir, true).optimized).toBe(false);
    });

    it('keeps the package binary without a manifest, or when told to', () => {
      setUp((src, out) => ({ sourceSha256: sha(src), outputSha256: sha(out) }));
      expect(choosePdfiumBinary(pkg, optDir, false)).toMatchObject({ path: pkg, optimized: false, reason: 'DOCPARSE_PDFIUM_OPTIMIZED=false' });
      fs.rmSync(path.join(optDir, 'pdfium.json'));
      expect(choosePdfiumBinary(pkg, optDir, true)).toMatchObject({ path: pkg, optimized: false, reason: expect.stringMatching(/no optimised build/) });
    });
  });
});
