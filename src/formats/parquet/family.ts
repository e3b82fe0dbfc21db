// Parquet (and GeoParquet): the file's metadata, and its rows when asked.
import type { FamilyDescriptor } from '../kit/family.js';
import { ParquetContent } from './schema.js';

export const parquetFamily: FamilyDescriptor = {
  family: 'parquet',
  title: 'Parquet',
  docPage: 'parquet.md',
  formats: [
    {
      format: 'parquet',
      documentType: 'Parquet',
      extensions: ['parquet', 'geoparquet'],
      signatures: [{ prefix: 'PAR1' }],
      load: async () => (await import('./index.js')).parseParquet,
    },
  ],
  routing: [{ name: 'parquetMode', values: [{ value: 'MetadataOnly' }, { value: 'MetadataPlusRows' }], default: 'MetadataOnly' }],
  chunks: false,
  units: '1 per file',
  content: { name: 'ParquetContent', schema: ParquetContent },
  engines: () => [{ engine: 'hyparquet', why: 'to read Parquet files' }],
};
