// CSV: one family, two routes (a table of values, or features from coordinate/WKT columns).
import type { FamilyDescriptor } from '../kit/family.js';
import { CsvContent } from './schema.js';

export const csvFamily: FamilyDescriptor = {
  family: 'csv',
  title: 'CSV',
  docPage: 'csv.md',
  formats: [{ format: 'csv', documentType: 'Csv', extensions: ['csv', 'tsv'], load: async () => (await import('./index.js')).parseCsv }],
  formatsNote: 'comma, semicolon, tab, pipe; UTF-8/UTF-16 with BOM, Latin-1',
  routing: [{ name: 'csvRoute', values: [{ value: 'Spatial' }, { value: 'Tabular' }], required: true }],
  chunks: false,
  units: '1 per file',
  content: { name: 'CsvContent', schema: CsvContent },
  engines: () => [],
};
