// Where a piece of an artifact came from (issue 32, item 3): one shape for every family, so a
// client can point back into the document — highlight a PDF box, open a sheet's range, jump to
// a SQL line — without knowing the family. Each family fills the fields that mean something for
// it; an embedded document (an e-mail's attachment) starts from its container's fields.
// Loaded in the main thread for the OpenAPI document: imports only @sinclair/typebox.
import { Type, type Static } from '@sinclair/typebox';

const Box = Type.Tuple([Type.Number(), Type.Number(), Type.Number(), Type.Number()], {
  description: '[x0, y0, x1, y1] in PDF points, origin top-left of the displayed (rotated) page',
});

/** A first and last value, both included (`[3, 3]` is one line). */
const Span = (description: string) => Type.Tuple([Type.Integer({ minimum: 0 }), Type.Integer({ minimum: 0 })], { description });

export const ProvenanceSchema = Type.Object(
  {
    message: Type.Optional(Type.Integer({ minimum: 1, description: 'E-mail: the message, counted from 1 in the order of content.messages' })),
    attachment: Type.Optional(
      Type.Array(Type.Integer({ minimum: 1 }), {
        minItems: 1,
        description: 'E-mail: the attachment, counted from 1 within its message; one number per level of nested messages, outermost first',
      }),
    ),
    file: Type.Optional(Type.String({ description: 'The embedded file this comes from (an attachment’s file name)' })),
    page: Type.Optional(Type.Integer({ minimum: 1, description: 'PDF page or word-processing page, from 1' })),
    box: Type.Optional(Box),
    sheet: Type.Optional(Type.String({ description: 'Spreadsheet: the sheet name' })),
    range: Type.Optional(Type.String({ description: 'Spreadsheet: the cell range in A1 notation, e.g. "B2:D9"' })),
    slide: Type.Optional(Type.Integer({ minimum: 1, description: 'Presentation: the slide, from 1' })),
    lines: Type.Optional(Span('Text formats: first and last line, from 1')),
    offsets: Type.Optional(Span('Text formats: first and last byte offset in the upload, from 0 (the last byte included)')),
    rows: Type.Optional(Span('CSV: first and last record, counted from 1 as data rows after the header; Parquet: first and last row of the file, from 0')),
    rowGroup: Type.Optional(Type.Integer({ minimum: 0, description: 'Parquet: the row group, from 0 as parquet tools number them' })),
    layer: Type.Optional(Type.String({ description: 'GIS: the layer name as ogrinfo lists it' })),
    feature: Type.Optional(Type.Integer({ description: 'GIS: the feature id (FID) as ogrinfo prints it' })),
    layout: Type.Optional(Type.String({ description: 'CAD: the layout ("Model" or a paper space name)' })),
    handle: Type.Optional(Type.String({ description: 'CAD: the entity handle, hexadecimal as the drawing stores it' })),
  },
  { additionalProperties: false, description: 'Where this came from in the document' },
);

export type Provenance = Static<typeof ProvenanceSchema>;

/** A box around both boxes. */
export function unionBox(a: readonly number[], b: readonly number[]): [number, number, number, number] {
  return [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[2], b[2]), Math.max(a[3], b[3])];
}
