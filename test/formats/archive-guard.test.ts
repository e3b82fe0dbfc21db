// The archive guard, through the real parsers of every family that opens ZIPs: a member whose
// headers lie about its size, ZIPs of ZIPs, and valid archives at the limit. What a user would
// notice: the job fails with the guard's sentence, and the scratch folder (what the job wrote
// to disk) and the guard's own counter stay under the limit.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { corpusPath, parseFile } from '../helpers/parse.js';
import { ArchiveBudget } from '../../src/formats/archive-guard.js';
import { writeArtifact } from '../../src/pipeline/thread.js';
import { FORMATS } from '../../src/formats/registry.js';
import type { ArchiveLimits } from '../../src/formats/settings.js';
import { loadConfig } from '../../src/config.js';
import { makeZip, type ZipMember } from '../helpers/zip.js';
import { parserSettings } from '../helpers/parser-settings.js';

// GDAL start-up (1–3 s, more on a loaded machine) falls in the first GIS test.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const MiB = 1024 * 1024;

let scratch: string;
beforeAll(async () => {
  scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'dp-archive-guard-'));
});
afterAll(async () => {
  await fs.rm(scratch, { recursive: true, force: true });
});

// ---- ZIPs written byte by byte, so their headers can lie ------------------------------------

type Member = ZipMember;

/** Every member deflated (the guard counts what inflates). */
const zipOf = (members: Member[]): Buffer => makeZip(members.map((m) => ({ deflate: true, ...m })));

/** 50 MB of zeros behind a header that says 100 bytes. */
const lyingMember = (name: string): Member => ({ name, data: Buffer.alloc(50_000_000), declared: 100 });

/** Text that compresses about 3:1, like real data (no ratio refusal in the way). */
function textOf(bytes: number, seed: number): Buffer {
  let s = '';
  let x = seed;
  while (s.length < bytes) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    s += `row ${x % 100000},${(x >> 8) % 997},${x.toString(36)}\n`;
  }
  return Buffer.from(s.slice(0, bytes));
}

const CONTENT_TYPES =
  '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>';
const ROOT_RELS =
  '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>';
const DOCUMENT =
  '<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>Quarterly memo</w:t></w:r></w:p></w:body></w:document>';

/** A DOCX whose media part (never read by the DOCX reader, but by LibreOffice) lies about its size. */
const lyingDocx = () =>
  zipOf([
    { name: '[Content_Types].xml', data: Buffer.from(CONTENT_TYPES) },
    { name: '_rels/.rels', data: Buffer.from(ROOT_RELS) },
    { name: 'word/document.xml', data: Buffer.from(DOCUMENT) },
    lyingMember('word/media/image1.png'),
  ]);

// ---- running a family's parser as the worker thread does -------------------------------------

async function dirBytes(dir: string): Promise<number> {
  let n = 0;
  for (const e of await fs.readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    n += e.isDirectory() ? await dirBytes(p) : (await fs.lstat(p)).size;
  }
  return n;
}

async function writeUpload(name: string, bytes: Buffer): Promise<string> {
  const p = path.join(scratch, name);
  await fs.writeFile(p, bytes);
  return p;
}

/**
 * Parses `file` with the registered parser for `format` in a scratch folder of its own, under
 * one archive budget for the upload with these limits (the rest the defaults), as a job's
 * would be, and reports the result, the guard's counter and what was left in the scratch folder.
 */
async function parseUpload(file: string, format: string, archive: Partial<ArchiveLimits> = {}) {
  const tempDir = await fs.mkdtemp(path.join(scratch, 'job-'));
  const artifactPath = `${tempDir}.json`; // beside the scratch folder, not counted in it
  // Office page counts are not under test: no LibreOffice run beside the guard.
  const settings = parserSettings({ archive, office: { render: 'off' } });
  const budget = new ArchiveBudget(settings.archive);
  const result = await writeArtifact(
    { documentId: 'archive-guard', fileName: path.basename(file), format, options: {}, customMetadata: null, inputPath: file, artifactPath, tempDir },
    () => FORMATS[format].load!(),
    settings,
    budget,
  );
  const artifact = result.ok ? JSON.parse(await fs.readFile(artifactPath, 'utf8')) : null;
  return { result, artifact, budget, scratchBytes: await dirBytes(tempDir) };
}

// ---- (a) a member whose headers declare 100 bytes ------------------------------------------

describe('a member that inflates past its declared size', () => {
  const sentence = (member: string) =>
    new RegExp(`member "${member.replace(/[.[\]/]/g, '\\$&')}" inflates to more than the 100 bytes its header declares; refused as a possible zip bomb`);

  it('ShpZip: refused at the first chunk, nothing of it written to disk', async () => {
    const upload = await writeUpload('lying.zip', zipOf([{ name: 'roads.prj', data: Buffer.from('GEOGCS["WGS 84"]') }, lyingMember('roads.shp')]));
    const { result, budget, scratchBytes } = await parseUpload(upload, 'shapefile');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.code).toBe('extraction_failed');
    expect(result.message).toMatch(sentence('roads.shp'));
    expect(budget.inflatedBytes).toBeLessThan(1024);
    expect(scratchBytes).toBeLessThan(1024);
  });

  it('KMZ: the same refusal', async () => {
    const upload = await writeUpload('lying.kmz', zipOf([lyingMember('doc.kml')]));
    const { result, scratchBytes } = await parseUpload(upload, 'kmz');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(sentence('doc.kml'));
    expect(scratchBytes).toBeLessThan(1024);
  });

  it('DOCX: refused when the package is opened, even for a part the reader itself never reads', async () => {
    const upload = await writeUpload('lying.docx', lyingDocx());
    const { result, budget } = await parseUpload(upload, 'docx');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.code).toBe('extraction_failed');
    expect(result.message).toMatch(sentence('word/media/image1.png'));
    expect(budget.inflatedBytes).toBeLessThan(64 * 1024);
  });

  it('e-mail: a lying DOCX attachment keeps the refusal as its note; the message itself is parsed', async () => {
    const b64 = lyingDocx().toString('base64').replace(/.{76}/g, '$&\r\n');
    const eml = [
      'From: a@example.com',
      'To: b@example.com',
      'Subject: memo',
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="B"',
      '',
      '--B',
      'Content-Type: text/plain',
      '',
      'see attached',
      '--B',
      'Content-Type: application/vnd.openxmlformats-officedocument.wordprocessingml.document; name="memo.docx"',
      'Content-Disposition: attachment; filename="memo.docx"',
      'Content-Transfer-Encoding: base64',
      '',
      b64,
      '--B--',
      '',
    ].join('\r\n');
    const upload = await writeUpload('memo.eml', Buffer.from(eml));
    const { result, artifact, budget } = await parseUpload(upload, 'eml');
    expect(result.ok).toBe(true);
    const att = artifact.content.messages[0].attachments.find((a: any) => a.fileName === 'memo.docx');
    expect(att.extraction).toBe('none');
    expect(att.note).toMatch(sentence('word/media/image1.png'));
    expect(budget.inflatedBytes).toBeLessThan(64 * 1024);
  });
});

// ---- (b) ZIPs inside ZIPs ----------------------------------------------------------------------

/** level0.zip ⊃ level1.zip ⊃ level2.zip ⊃ level3.zip, each level holding `perLevel` bytes of its own. */
function nestedZip(perLevel: number): Buffer {
  let inner: Buffer | null = null;
  for (let level = 3; level >= 0; level--) {
    const members: Member[] = [{ name: `level${level}.csv`, data: textOf(perLevel, level + 1) }];
    if (inner) members.push({ name: `level${level + 1}.zip`, data: inner });
    inner = zipOf(members);
  }
  return inner!;
}

describe('ZIPs inside ZIPs share one budget', () => {
  it('refused once the levels together pass the limit, though each archive alone is under it', async () => {
    const upload = await writeUpload('nested.zip', nestedZip(2 * MiB));
    const { result, budget, scratchBytes } = await parseUpload(upload, 'shapefile', { maxBytes: 5 * MiB });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.message).toMatch(/^The archive expands to more than 5 MiB, the limit for one upload \(archives inside it included\)/);
    expect(budget.inflatedBytes).toBeLessThanOrEqual(5 * MiB);
    expect(budget.inflatedBytes).toBeGreaterThan(2 * MiB); // the first level was extracted: the refusal came from a nested one
    expect(scratchBytes).toBeLessThanOrEqual(5 * MiB);
  });

  it('archives deeper than the depth limit are left closed and named', async () => {
    // A real shapefile three levels down: found with depth 3, named as not opened with depth 2.
    const poly = await fs.readFile(corpusPath('gis', 'shp_poly.zip'));
    const deep = zipOf([{ name: 'a.zip', data: zipOf([{ name: 'b.zip', data: zipOf([{ name: 'poly.zip', data: poly }]) }]) }]);
    const upload = await writeUpload('deep.zip', deep);
    const open = await parseUpload(upload, 'shapefile', { maxBytes: 64 * MiB, maxDepth: 3 });
    expect(open.result.ok).toBe(true);
    expect(open.artifact.content.datasets.map((d: any) => d.source)).toEqual(['a.zip/b.zip/poly.zip/poly.shp']);
    const closed = await parseUpload(upload, 'shapefile', { maxBytes: 64 * MiB, maxDepth: 2 });
    expect(closed.result.ok).toBe(false);
    if (!closed.result.ok) expect(closed.result.message).toMatch(/nested archives are not opened: a\.zip\/b\.zip\/poly\.zip/);
  });

  it('a small ZIP of ZIPs with honest headers (1900 × 1 MiB inside 20 KB) is refused before it is unpacked', async () => {
    // Each 1 MiB member is under the per-member ratio check's floor; compression multiplies
    // across the two levels, which the upload's overall ratio catches (default limits).
    const mib = Buffer.alloc(MiB);
    const deflated = zlib.deflateRawSync(mib);
    const inner = zipOf(Array.from({ length: 1900 }, (_, i) => ({ name: `part${i}.bin`, data: mib, deflated })));
    const upload = await writeUpload('zip-of-zips.zip', zipOf([{ name: 'inner.zip', data: inner }]));
    const size = (await fs.stat(upload)).size;
    expect(size).toBeLessThan(100_000);
    const { result, scratchBytes } = await parseUpload(upload, 'shapefile');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(new RegExp(`expand to more than 1000 times the upload's ${size} bytes`));
    expect(scratchBytes).toBeLessThanOrEqual(1000 * size);
  });
});

// ---- (c) valid archives at the limit -----------------------------------------------------------

describe('valid archives at the limit', () => {
  it('a ShpZip that inflates to exactly the limit parses; one byte less is refused', async () => {
    const file = corpusPath('gis', 'shp_poly.zip');
    const full = await parseUpload(file, 'shapefile');
    expect(full.result.ok).toBe(true);
    const used = full.budget.inflatedBytes;
    expect(full.artifact.metadata.archive.uncompressedBytes).toBe(used);

    const at = await parseUpload(file, 'shapefile', { maxBytes: used });
    expect(at.result.ok).toBe(true);
    expect(at.artifact.content).toEqual(full.artifact.content);

    const below = await parseUpload(file, 'shapefile', { maxBytes: used - 1 });
    expect(below.result.ok).toBe(false);
    if (!below.result.ok) expect(below.result.message).toMatch(new RegExp(`^The archive expands to more than ${used - 1} bytes`));
  });

  // Each part counts once, though the reader inflates some again, and a workbook is opened twice.
  it.each([
    ['tika__testWORD.docx', 'docx'],
    ['tika__testEXCEL.xlsx', 'xlsx'],
  ])('%s at exactly the limit parses; one byte less is refused', async (name, format) => {
    const file = corpusPath('office', name);
    const full = await parseUpload(file, format);
    expect(full.result.ok).toBe(true);
    const used = full.budget.inflatedBytes;
    expect(used).toBeGreaterThan(0);

    const at = await parseUpload(file, format, { maxBytes: used });
    expect(at.result.ok).toBe(true);
    expect(at.artifact.content).toEqual(full.artifact.content);

    const below = await parseUpload(file, format, { maxBytes: used - 1 });
    expect(below.result.ok).toBe(false);
    if (!below.result.ok) expect(below.result.message).toMatch(new RegExp(`^The archive expands to more than ${used - 1} bytes, the limit for one upload`));
  });

  it('the older GIS variable still sets the limit', async () => {
    const { parsers } = loadConfig({ DOCPARSE_GIS_MAX_UNZIPPED_BYTES: '1000' });
    const r = await parseFile(corpusPath('gis', 'shp_poly.zip'), 'shapefile', {}, 'shp_poly.zip', parserSettings({ archive: parsers.archive }));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(/^The archive expands to more than 1000 bytes/);
  });
});
