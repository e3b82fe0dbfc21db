// writeArtifact writes the artifact synchronously from the parse thread (SyncFileStream). A
// file that cannot be created fails the task before any parsing; a write that fails part-way
// (a full disk, a disk error) fails it as transient — retried later, nothing reported as done —
// instead of hanging or leaving an 'error' unhandled; either is reported as the result file's
// failure, not the parser's; a good path gets the whole artifact, byte count included.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { writeArtifact } from '../../src/pipeline/thread.js';
import { parsePdf } from '../../src/formats/pdf/index.js';
import { corpusPath } from '../helpers/parse.js';
import { parserSettings } from '../helpers/parser-settings.js';

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
  it('a path that cannot be created fails the task with the file error', async () => {
    // Its folder would have to be made inside a regular file.
    const blocker = path.join(dir, 'a-file');
    fs.writeFileSync(blocker, 'not a folder');
    const impossible = path.join(blocker, 'scratch', 'a.json');
    const r = await writeArtifact(task('pysample__libreoffice-form.pdf', impossible), async () => parsePdf, parserSettings());
    expect(r).toMatchObject({ ok: false, code: 'extraction_failed', transient: false });
    if (!r.ok) expect(r.message).toBe('The result file could not be written (ENOTDIR).');
  });

  it('a scratch folder removed behind the node is made again, private to the service', async () => {
    const missing = path.join(dir, 'removed-scratch', 'a.json');
    const r = await writeArtifact(task('pysample__libreoffice-form.pdf', missing), async () => parsePdf, parserSettings());
    expect(r).toMatchObject({ ok: true });
    expect(fs.statSync(missing).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(missing)).mode & 0o777).toBe(0o700);
  });

  it('a full disk part-way through a large artifact fails the task as transient', async () => {
    // /dev/full opens, then refuses every write with ENOSPC.
    const r = await writeArtifact(task('pysample__GeoTopo-komprimiert.pdf', '/dev/full'), async () => parsePdf, parserSettings());
    expect(r).toMatchObject({ ok: false, transient: true });
    if (!r.ok) expect(r.message).toBe('The result file could not be written (ENOSPC).');
  });

  it('a disk that fails a write (EIO) fails the task as transient', async () => {
    // The kernel answers a write at offset 0 of /proc/self/mem (never mapped) with EIO: a real
    // I/O error, and the first write is refused, so nothing is written anywhere.
    const r = await writeArtifact(task('pysample__libreoffice-form.pdf', '/proc/self/mem'), async () => parsePdf, parserSettings());
    expect(r).toMatchObject({ ok: false, code: 'extraction_failed', transient: true });
    if (!r.ok) expect(r.message).toBe('The result file could not be written (EIO).');
  });

  it("a failure while parsing is reported as the parser's, not retried", async () => {
    // The upload is a folder: its read fails (EISDIR) inside the parser, not on the result file.
    const r = await writeArtifact(
      { ...task('pysample__libreoffice-form.pdf', path.join(dir, 'unread.json')), inputPath: dir },
      async () => parsePdf,
      parserSettings(),
    );
    expect(r).toMatchObject({ ok: false, code: 'extraction_failed', transient: false });
    if (!r.ok) {
      // The client reads a sentence about the document; the raw error is kept for the log.
      expect(r.message).toBe('The PDF file could not be read: its structure is damaged or uses a feature the parser does not support.');
      expect(r.internal).toMatch(/EISDIR/);
    }
  });

  it('an upload that is gone is said to be gone, not damaged', async () => {
    // Nothing checks for the upload before the task: its parser's open is what fails.
    const r = await writeArtifact(
      { ...task('pysample__libreoffice-form.pdf', path.join(dir, 'gone.json')), inputPath: path.join(dir, 'no-such-upload.pdf') },
      async () => parsePdf,
      parserSettings(),
    );
    expect(r).toMatchObject({ ok: false, code: 'extraction_failed', transient: false });
    if (!r.ok) {
      expect(r.message).toBe('The uploaded document is no longer in storage (its job was replaced or expired, or the storage lost it); upload it again.');
      expect(r.internal).toMatch(/ENOENT/);
    }
  });

  it("an artifact written in place in a job's folder that is gone makes no folder again", async () => {
    // The job's blobs were deleted (replaced, expired) while it waited: upload and folder are gone.
    const folder = path.join(dir, 'deleted-job');
    const r = await writeArtifact(
      {
        ...task('pysample__libreoffice-form.pdf', path.join(folder, 'artifact.run.json')),
        inputPath: path.join(folder, 'upload'),
        artifactInPlace: true,
      },
      async () => parsePdf,
      parserSettings(),
    );
    expect(r).toMatchObject({ ok: false, code: 'extraction_failed', transient: false });
    if (!r.ok) expect(r.message).toMatch(/^The uploaded document is no longer in storage/);
    expect(fs.existsSync(folder)).toBe(false);
  });

  for (const file of ['pysample__libreoffice-form.pdf', 'pysample__GeoTopo-komprimiert.pdf']) {
    it(`${file}: a good path gets the whole artifact`, async () => {
      const out = path.join(dir, `${file}.json`);
      const r = await writeArtifact(task(file, out), async () => parsePdf, parserSettings());
      expect(r.ok).toBe(true);
      if (!r.ok) return;
      const artifact = JSON.parse(fs.readFileSync(out, 'utf8'));
      expect(artifact.content.pages.length).toBe(r.documentUnits);
      expect(fs.statSync(out).size).toBe(r.artifactBytes);
    });
  }
});
