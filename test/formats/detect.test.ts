// Format detection on real files of every family: magic bytes first, then the file name,
// then documentType; ZIP archives of GIS data need documentType.
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { detectFormat, UndecidedFormat } from '../../src/formats/detect.js';
import { CORPUS_ROOT } from '../helpers/parse.js';

function head(file: string): Buffer {
  const fd = fs.openSync(file, 'r');
  const b = Buffer.alloc(8192);
  const n = fs.readSync(fd, b, 0, b.length, 0);
  fs.closeSync(fd);
  return b.subarray(0, n);
}

const files = (family: string) =>
  fs
    .readdirSync(path.join(CORPUS_ROOT, family))
    .filter((f) => f !== 'MANIFEST.tsv')
    .map((f) => path.join(CORPUS_ROOT, family, f));

describe('detectFormat', () => {
  it('recognises every PDF, Parquet and DWG of the corpus by its bytes alone', () => {
    for (const f of files('pdf')) expect(detectFormat(head(f), undefined, undefined), f).toEqual({ format: 'pdf', by: 'magic' });
    for (const f of files('parquet').filter((f) => !path.basename(f).startsWith('bad_')))
      expect(detectFormat(head(f), undefined, undefined).format, f).toBe('parquet');
    for (const f of files('cad').filter((f) => f.endsWith('.dwg') && !path.basename(f).startsWith('bad_')))
      expect(detectFormat(head(f), undefined, undefined).format, f).toBe('dwg');
  });

  it('tells DOCX, XLSX, PPTX and ODF packages apart from their first ZIP entries, without a name', () => {
    const office = files('office').filter((f) => /\.(docx|xlsx|pptx|odt|ods|odp)$/i.test(f));
    let recognised = 0;
    for (const f of office) {
      const want = path.extname(f).slice(1).toLowerCase();
      let got: string | null = null;
      try {
        got = detectFormat(head(f), undefined, undefined).format;
      } catch {
        /* encrypted (OLE), truncated or not a zip: the file name decides */
      }
      if (got !== null) expect(got, f).toBe(want);
      if (got === want) recognised++;
      expect(detectFormat(head(f), path.basename(f), undefined).format, f).toBe(want);
    }
    expect(recognised).toBeGreaterThanOrEqual(60);
  });

  it('needs documentType for a GIS ZIP and honours SHP_ZIP / MapInfo / FileGdb spellings', () => {
    const shp = head(path.join(CORPUS_ROOT, 'gis', 'shp_poly.zip'));
    expect(() => detectFormat(shp, 'shp_poly.zip', undefined)).toThrow(UndecidedFormat);
    expect(() => detectFormat(shp, undefined, undefined)).toThrow(expect.objectContaining({ parameter: 'documentType' }));
    expect(detectFormat(shp, undefined, 'ShpZip').format).toBe('shapefile');
    expect(detectFormat(head(path.join(CORPUS_ROOT, 'gis', 'mapinfo_all_geoms_tab.zip')), undefined, 'MapInfo').format).toBe('mapinfo');
    expect(detectFormat(head(path.join(CORPUS_ROOT, 'gis', 'fgdb_curves.gdb.zip')), undefined, 'FileGdb').format).toBe('filegdb');
  });

  it('finds e-mail by content: mbox From_ lines, RFC 822 headers, PST signature', () => {
    const email = files('email');
    for (const f of email.filter((f) => f.endsWith('.mbox'))) expect(detectFormat(head(f), undefined, undefined).format, f).toBe('mbox');
    for (const f of email.filter((f) => f.endsWith('.pst'))) expect(detectFormat(head(f), undefined, undefined).format, f).toBe('pst');
    for (const f of email.filter((f) => f.endsWith('.msg'))) expect(detectFormat(head(f), path.basename(f), undefined).format, f).toBe('msg');
  });

  it('refuses a documentType that contradicts the content', () => {
    const pdf = files('pdf')[0];
    expect(() => detectFormat(head(pdf), 'x.pdf', 'Dwg')).toThrow(/content is PDF/);
  });
});
