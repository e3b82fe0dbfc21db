// JSON Schema (TypeBox) of the PDF artifact's `content`. Loaded in the main thread for the
// OpenAPI document: imports only @sinclair/typebox.
import { Type, type Static } from '@sinclair/typebox';
import { ProvenanceSchema } from '../kit/provenance.js';

/** [x0, y0, x1, y1] in points, origin at the top-left of the page as displayed (rotation applied). */
const BBox = Type.Tuple([Type.Number(), Type.Number(), Type.Number(), Type.Number()], {
  description: '[x0, y0, x1, y1] in PDF points, origin top-left of the displayed (rotated) page',
});

/** Page and box of each part (the box is its bbox), after the fields of the document's container (an e-mail attachment). */
const Provenance = ProvenanceSchema;

/** A word of a block's text with its box (Advanced). */
export const PdfWord = Type.Object({ text: Type.String(), bbox: BBox }, { additionalProperties: false });

export const PdfBlock = Type.Object(
  {
    id: Type.String({ description: 'Stable reference, "p<page>.b<index>"' }),
    kind: Type.Union([Type.Literal('heading'), Type.Literal('paragraph'), Type.Literal('list'), Type.Literal('header'), Type.Literal('footer')]),
    level: Type.Optional(Type.Integer({ minimum: 1, maximum: 6, description: 'Heading level (1 = top), from font size and weight relative to body text' })),
    text: Type.String(),
    bbox: BBox,
    order: Type.Integer({ minimum: 0, description: 'Reading order on the page' }),
    column: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'Column index (MultiColumn), null when full width' }),
    fontSize: Type.Number({ description: 'Effective font size in points (font size × text matrix scale)' }),
    font: Type.String(),
    bold: Type.Boolean(),
    italic: Type.Boolean(),
    lineCount: Type.Integer({ minimum: 0 }),
    listMarker: Type.Optional(Type.String()),
    source: Type.Optional(Type.Union([Type.Literal('text'), Type.Literal('ocr')])),
    confidence: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'Mean OCR word confidence' })),
    structType: Type.Optional(Type.String({ description: 'Structure tree element type (tagged PDFs, Advanced)' })),
    words: Type.Optional(
      Type.Array(PdfWord, { description: "The block's words with their boxes, left to right on each line, lines top to bottom (Advanced, text layer)" }),
    ),
    provenance: Provenance,
  },
  { additionalProperties: false },
);

export const PdfOcrWord = Type.Object(
  { text: Type.String(), bbox: BBox, confidence: Type.Number({ minimum: 0, maximum: 1 }), provenance: Provenance },
  { additionalProperties: false },
);

export const PdfOcrLine = Type.Object(
  {
    text: Type.String(),
    bbox: BBox,
    confidence: Type.Number({ minimum: 0, maximum: 1 }),
    words: Type.Array(PdfOcrWord),
    provenance: Provenance,
  },
  { additionalProperties: false },
);

export const PdfTableCell = Type.Object(
  {
    row: Type.Integer({ minimum: 0 }),
    col: Type.Integer({ minimum: 0 }),
    rowSpan: Type.Integer({ minimum: 1 }),
    colSpan: Type.Integer({ minimum: 1 }),
    text: Type.String(),
    bbox: BBox,
    header: Type.Optional(
      Type.Boolean({ description: "true on a table's header rows: its leading rows (at most 3) set all in bold above a row that is not; absent otherwise" }),
    ),
    provenance: Provenance,
  },
  { additionalProperties: false },
);

export const PdfTable = Type.Object(
  {
    id: Type.String({ description: '"p<page>.t<index>"' }),
    bbox: BBox,
    rows: Type.Integer({ minimum: 1 }),
    columns: Type.Integer({ minimum: 1 }),
    ruled: Type.Boolean({ description: 'true when found from ruling lines, false when from text alignment' }),
    source: Type.Union([Type.Literal('ruling'), Type.Literal('alignment'), Type.Literal('structure')]),
    cells: Type.Array(PdfTableCell),
    continuedFrom: Type.Optional(Type.String({ description: 'Id of the table on the previous page this one continues' })),
    continuesOn: Type.Optional(Type.String()),
    provenance: Provenance,
  },
  { additionalProperties: false },
);

export const PdfLink = Type.Object(
  {
    bbox: BBox,
    uri: Type.Optional(Type.String()),
    targetPage: Type.Optional(Type.Integer({ minimum: 1 })),
    text: Type.Optional(Type.String()),
    provenance: Provenance,
  },
  { additionalProperties: false },
);

export const PdfAnnotation = Type.Object(
  {
    subtype: Type.String(),
    bbox: BBox,
    contents: Type.Optional(Type.String()),
    author: Type.Optional(Type.String()),
    provenance: Provenance,
  },
  { additionalProperties: false },
);

export const PdfFormField = Type.Object(
  {
    name: Type.String(),
    type: Type.String(),
    value: Type.Union([Type.String(), Type.Null()]),
    checked: Type.Optional(Type.Boolean()),
    alternateName: Type.Optional(Type.String()),
    options: Type.Optional(Type.Array(Type.String())),
    readOnly: Type.Optional(Type.Boolean()),
    required: Type.Optional(Type.Boolean()),
    bbox: BBox,
    provenance: Provenance,
  },
  { additionalProperties: false },
);

export const PdfImage = Type.Object(
  {
    bbox: BBox,
    pixelWidth: Type.Integer({ minimum: 0 }),
    pixelHeight: Type.Integer({ minimum: 0 }),
    filters: Type.Array(Type.String()),
    provenance: Provenance,
  },
  { additionalProperties: false },
);

export const PdfPage = Type.Object(
  {
    number: Type.Integer({ minimum: 1 }),
    width: Type.Number(),
    height: Type.Number(),
    rotation: Type.Union([Type.Literal(0), Type.Literal(90), Type.Literal(180), Type.Literal(270)]),
    label: Type.Optional(Type.String()),
    textSource: Type.Union([Type.Literal('text'), Type.Literal('ocr'), Type.Literal('none')], {
      description: 'Where the page text came from: the PDF text layer, OCR, or nothing found',
    }),
    columns: Type.Integer({ minimum: 0, description: 'Most text columns side by side on the page' }),
    blocks: Type.Array(PdfBlock),
    ocr: Type.Optional(
      Type.Object(
        {
          dpi: Type.Integer(),
          meanConfidence: Type.Number({ minimum: 0, maximum: 1 }),
          lines: Type.Array(PdfOcrLine),
        },
        { additionalProperties: false },
      ),
    ),
    tables: Type.Optional(Type.Array(PdfTable)),
    links: Type.Optional(Type.Array(PdfLink)),
    annotations: Type.Optional(Type.Array(PdfAnnotation)),
    formFields: Type.Optional(Type.Array(PdfFormField)),
    images: Type.Optional(Type.Array(PdfImage)),
  },
  { additionalProperties: false },
);

export const PdfOutlineItem = Type.Object(
  { title: Type.String(), level: Type.Integer({ minimum: 1 }), page: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]) },
  { additionalProperties: false },
);

export const PdfContent = Type.Object(
  {
    mode: Type.Union([Type.Literal('SingleColumn'), Type.Literal('MultiColumn'), Type.Literal('Ocr'), Type.Literal('Advanced')]),
    pageCount: Type.Integer({ minimum: 0 }),
    pages: Type.Array(PdfPage),
    outline: Type.Array(PdfOutlineItem, { description: 'Bookmarks (document outline), flattened in order' }),
  },
  {
    additionalProperties: false,
    description: 'PDF content: pages with text blocks in reading order (and OCR words, tables, forms, links in the richer modes)',
  },
);

export type PdfContentT = Static<typeof PdfContent>;
export type PdfPageT = Static<typeof PdfPage>;
export type PdfBlockT = Static<typeof PdfBlock>;
export type PdfTableT = Static<typeof PdfTable>;
export type PdfWordT = Static<typeof PdfWord>;
