// writeArtifact opens the artifact file while the parser already runs: a file that cannot be
// created must fail the task with the file's error (not hang waiting for a drain that never
// comes, not report success), whether the document is small (no flush before the end) or
// large (flushes while parsing); a good path still gives the whole artifact.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { writeArtifact } from '../../src/pipeline/thread.js';
import { parsePdf } from '../../src/formats/pdf/index.js';
import { corpusPath } from '../helpers/parse.js';

vi.setConfig({ testTimeout: 120_000 });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'artifact-test-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const task = (file: string, artifactPath: string) => ({
  documentId: 'd',
  fileName: file,
  format: 'pdf' as const,
  options: { pdfMode: 'SingleColumn' as const },
  customMetadata: null,
  inputPath: corpusPath('pdf', file),
  artifactPath,
  tempDir: dir,
});

describe('artifact file', () => {
  for (const [label, file] of [
    ['small document (written at the end)', 'pysample__libreoffice-form.pdf'],
    ['large document (flushed while parsing)', 'pysample__GeoTopo-komprimiert.pdf'],
  ]) {
    it(`${label}: a path that cannot be created fails the task with the file error`, async () => {
      const missing = path.join(dir, 'no-such-dir', 'a.json');
      const r = await writeArtifact(task(file, missing), async () => parsePdf);
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.code).toBe('extraction_failed');
      expect(r.message).toMatch(/ENOENT/);
      expect(r.transient).toBe(false);
      expect(fs.existsSync(missing)).toBe(false);
    });

    it(`${label}: a good path gets the whole artifact`, async () => {
      const out = path.join(dir, `${file}.json`);
      const r = await writeArtifact(task(file, out), async () => parsePdf);
      expect(r.ok).toBe(true);
      if (!r.ok) return;
      const artifact = JSON.parse(fs.readFileSync(out, 'utf8'));
      expect(artifact.content.pages.length).toBe(r.documentUnits);
      expect(fs.statSync(out).size).toBe(r.artifactBytes);
    });
  }
});
