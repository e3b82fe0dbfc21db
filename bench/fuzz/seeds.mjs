// The seed pool: small corpus files (test/helpers/corpus-dir.mjs; read in
// place, never copied) plus the generated seeds, per family, in a stable order so that the
// same inputs always give the same cases.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatedSeeds } from './generators/index.mjs';
import { CORPUS_DIR } from '../../test/helpers/corpus-dir.mjs';

export const FAMILIES = ['csv', 'pdf', 'office', 'email', 'sql', 'gis', 'cad', 'parquet'];
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const DEFAULT_CORPUS_DIR = CORPUS_DIR;

const SQL_DIALECTS = {
  postgresql: 'PostgreSql',
  tsql: 'MsSql',
  mssql: 'MsSql',
  mysql: 'MySql',
  snowflake: 'Snowflake',
  bigquery: 'BigQuery',
  sqlite: 'Sqlite',
  oracle: 'Oracle',
};
const SQL_PREFIXES = { pg: 'PostgreSql', tsql: 'MsSql', mysql: 'MySql', snowflake: 'Snowflake' };

/** MANIFEST.tsv rows of a corpus folder, or a plain listing when there is no MANIFEST. */
function manifestRows(dir) {
  const file = path.join(dir, 'MANIFEST.tsv');
  if (!fs.existsSync(file))
    return fs
      .readdirSync(dir)
      .sort()
      .map((f) => ({ file: f }));
  const [head, ...lines] = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim());
  const cols = head.split('\t');
  return lines.map((l) => Object.fromEntries(l.split('\t').map((v, i) => [cols[i], v])));
}

/** documentType for a GIS ZIP, from the naming used in the corpus. */
function gisZipType(name) {
  if (/^mapinfo_/.test(name)) return 'MapInfo';
  if (/^fgdb_|\.gdb\.zip$/.test(name)) return 'FileGdb';
  if (/^gpkg_|\.gpkg\.zip$/.test(name)) return 'GeoPackage';
  return 'ShpZip';
}

/** Routing hints a corpus file carries by its name or MANIFEST row. */
function corpusHints(family, row) {
  const name = row.file;
  if (family === 'sql') {
    const dialect = SQL_DIALECTS[(row.dialect ?? '').toLowerCase()] ?? SQL_PREFIXES[name.split('__')[0]];
    return dialect ? { dialect } : {};
  }
  if (family === 'gis' && name.endsWith('.zip')) return { documentType: gisZipType(name) };
  return {};
}

/**
 * {family: [{family, name, origin, bytes, dialect?, documentType?}]}: corpus files up to
 * maxSeedBytes (sorted by name) then the generated seeds.
 */
export function loadSeedPool({ families = FAMILIES, corpusDir = CORPUS_DIR, maxSeedBytes = 2 * 1024 * 1024, useCorpus = true } = {}) {
  const generated = generatedSeeds(families);
  const pool = {};
  for (const family of families) {
    const seeds = [];
    const dir = path.join(corpusDir, family);
    if (useCorpus && fs.existsSync(dir)) {
      const rows = manifestRows(dir)
        .filter((r) => r.file && r.file !== 'MANIFEST.tsv')
        .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
      for (const row of rows) {
        const p = path.join(dir, row.file);
        let st;
        try {
          st = fs.statSync(p);
        } catch {
          continue;
        }
        if (!st.isFile() || st.size === 0 || st.size > maxSeedBytes) continue;
        seeds.push({ family, name: row.file, origin: 'corpus', bytes: fs.readFileSync(p), ...corpusHints(family, row) });
      }
    }
    for (const g of generated[family]) seeds.push({ family, origin: 'generated', ...g });
    pool[family] = seeds;
  }
  return pool;
}

/** "corpus:pdf/x.pdf" or "generated:pdf/gen_text.pdf": how a case names its seed. */
export const seedKey = (s) => `${s.origin}:${s.family}/${s.name}`;

export function poolSummary(pool) {
  return Object.entries(pool)
    .map(
      ([f, seeds]) => `${f}: ${seeds.filter((s) => s.origin === 'corpus').length} corpus + ${seeds.filter((s) => s.origin === 'generated').length} generated`,
    )
    .join('; ');
}
