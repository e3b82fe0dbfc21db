// CAD drawings: DWG through LibreDWG, DXF (text and binary) read directly.
import type { FamilyDescriptor } from '../kit/family.js';
import { CadContent } from './schema.js';

const cad = async () => import('./index.js');

/** DWG's version string: AC1012 … AC1032, and the early AC1.x / AC2.x releases. */
const isDwg = (head: Buffer) =>
  /^AC1\d{3}/.test(head.subarray(0, 6).toString('latin1')) ||
  head.subarray(0, 4).toString('latin1') === 'AC2.' ||
  head.subarray(0, 4).toString('latin1') === 'AC1.';

export const cadFamily: FamilyDescriptor = {
  family: 'cad',
  title: 'CAD',
  docPage: 'cad.md',
  formats: [
    { format: 'dwg', documentType: 'Dwg', extensions: ['dwg'], signatures: [{ test: isDwg }], load: async () => (await cad()).parseDwg },
    {
      format: 'dxf',
      documentType: 'Dxf',
      extensions: ['dxf'],
      signatures: [{ prefix: 'AutoCAD Binary DXF' }, { text: /^\s*0\s*\r?\n\s*SECTION\s*\r?\n/ }],
      load: async () => (await cad()).parseDxf,
    },
  ],
  routing: [],
  chunks: false,
  units: '1 per document',
  content: { name: 'CadContent', schema: CadContent },
  engines: (format) => (format === 'dwg' ? [{ engine: 'LibreDWG', why: 'to read DWG drawings' }] : []),
};
