// JSON Schema (TypeBox) of the artifact `content` for the Office and OpenDocument family:
// docx, doc, odt, rtf (kind "document"), xlsx, xls, ods (kind "spreadsheet"),
// pptx, ppt, odp (kind "presentation"). Loaded in the main thread for OpenAPI.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { ProvenanceSchema } from '../kit/provenance.js';

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const OfficeProperties = Type.Object(
  {
    title: Type.Optional(Type.String()),
    subject: Type.Optional(Type.String()),
    creator: Type.Optional(Type.String()),
    keywords: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    lastModifiedBy: Type.Optional(Type.String()),
    category: Type.Optional(Type.String()),
    created: Type.Optional(Type.String({ description: 'ISO 8601' })),
    modified: Type.Optional(Type.String({ description: 'ISO 8601' })),
    application: Type.Optional(Type.String()),
    company: Type.Optional(Type.String()),
    template: Type.Optional(Type.String()),
    pages: Type.Optional(Type.Integer({ description: "The document's own (stored) page count; may be stale" })),
    words: Type.Optional(Type.Integer()),
    characters: Type.Optional(Type.Integer()),
  },
  { additionalProperties: false },
);

export const OfficeLink = Type.Object({ text: Type.String(), target: Type.String() }, { additionalProperties: false });

export const OfficeImage = Type.Object(
  {
    name: Nullable(Type.String()),
    description: Nullable(Type.String()),
    target: Nullable(Type.String({ description: 'Package part of the image, e.g. word/media/image1.png' })),
    contentType: Nullable(Type.String()),
    sizeBytes: Nullable(Type.Integer()),
    widthPt: Nullable(Type.Number()),
    heightPt: Nullable(Type.Number()),
    blockIndex: Nullable(Type.Integer({ description: 'Index of the body block holding the image' })),
  },
  { additionalProperties: false },
);

const Inline = {
  links: Type.Optional(Type.Array(OfficeLink)),
  footnoteIds: Type.Optional(Type.Array(Type.String())),
  endnoteIds: Type.Optional(Type.Array(Type.String())),
  commentIds: Type.Optional(Type.Array(Type.String())),
  inTextBox: Type.Optional(Type.Boolean()),
};

/** Word processing: where a block, table or cell is (the page it starts on in the rendered layout). */
const Placed = {
  provenance: Type.Optional(ProvenanceSchema),
};

export const OfficeBlock = Type.Recursive(
  (Self) =>
    Type.Union([
      Type.Object(
        {
          type: Type.Literal('heading'),
          index: Type.Integer(),
          level: Type.Integer({ minimum: 1 }),
          text: Type.String(),
          style: Nullable(Type.String()),
          ...Inline,
          ...Placed,
        },
        { additionalProperties: false },
      ),
      Type.Object(
        { type: Type.Literal('paragraph'), index: Type.Integer(), text: Type.String(), style: Nullable(Type.String()), ...Inline, ...Placed },
        { additionalProperties: false },
      ),
      Type.Object(
        {
          type: Type.Literal('listItem'),
          index: Type.Integer(),
          text: Type.String(),
          style: Nullable(Type.String()),
          level: Type.Integer({ minimum: 0, description: 'Nesting level, 0 = outermost' }),
          ordered: Type.Boolean(),
          listId: Type.String(),
          label: Nullable(Type.String({ description: 'Rendered marker, e.g. "1.", "a)", "•"' })),
          ...Inline,
          ...Placed,
        },
        { additionalProperties: false },
      ),
      Type.Object(
        {
          type: Type.Literal('table'),
          index: Type.Integer(),
          rowCount: Type.Integer(),
          columnCount: Type.Integer(),
          headerRows: Type.Integer({
            minimum: 0,
            description: 'Leading rows marked as the header repeated on each page (w:tblHeader, table:table-header-rows)',
          }),
          ...Placed,
          rows: Type.Array(
            Type.Array(
              Type.Object(
                {
                  row: Type.Integer(),
                  col: Type.Integer(),
                  rowSpan: Type.Integer({ minimum: 1 }),
                  colSpan: Type.Integer({ minimum: 1 }),
                  text: Type.String(),
                  blocks: Type.Optional(Type.Array(Self, { description: 'Cell content when it has more than one paragraph or a nested table' })),
                  ...Placed,
                },
                { additionalProperties: false },
              ),
            ),
          ),
        },
        { additionalProperties: false },
      ),
    ]),
  { $id: 'OfficeBlock' },
);

export const OfficeNote = Type.Object({ id: Type.String(), text: Type.String() }, { additionalProperties: false });

export const OfficeComment = Type.Object(
  { id: Type.String(), author: Nullable(Type.String()), date: Nullable(Type.String()), text: Type.String() },
  { additionalProperties: false },
);

export const OfficeHeaderFooter = Type.Object(
  { kind: Type.Union([Type.Literal('header'), Type.Literal('footer')]), type: Type.String({ description: 'default, first or even' }), text: Type.String() },
  { additionalProperties: false },
);

export const DocumentContent = Type.Object(
  {
    kind: Type.Literal('document'),
    properties: OfficeProperties,
    blocks: Type.Array(OfficeBlock),
    headersFooters: Type.Array(OfficeHeaderFooter),
    footnotes: Type.Array(OfficeNote),
    endnotes: Type.Array(OfficeNote),
    comments: Type.Array(OfficeComment),
    hyperlinks: Type.Array(OfficeLink),
    images: Type.Array(OfficeImage),
  },
  { additionalProperties: false },
);

const CellScalar = Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]);

export const OfficeCell = Type.Object(
  {
    ref: Type.String({ description: 'A1 reference' }),
    col: Type.Integer({ minimum: 1 }),
    type: Type.Union([
      Type.Literal('number'),
      Type.Literal('string'),
      Type.Literal('boolean'),
      Type.Literal('date'),
      Type.Literal('formula'),
      Type.Literal('error'),
    ]),
    value: CellScalar,
    formula: Type.Optional(Type.String()),
    resultType: Type.Optional(
      Type.Union([Type.Literal('number'), Type.Literal('string'), Type.Literal('boolean'), Type.Literal('date'), Type.Literal('error'), Type.Literal('none')]),
    ),
    numFmt: Type.Optional(Type.String()),
    hyperlink: Type.Optional(Type.String()),
    rowSpan: Type.Optional(Type.Integer({ minimum: 1, description: 'Rows a merged cell covers (only on the top-left cell of a merged range)' })),
    colSpan: Type.Optional(Type.Integer({ minimum: 1, description: 'Columns a merged cell covers (only on the top-left cell of a merged range)' })),
  },
  { additionalProperties: false, description: 'Dates are ISO 8601 strings; a formula cell carries its cached value in value' },
);

export const OfficeSheetTable = Type.Object(
  {
    name: Type.String(),
    range: Type.String({ description: 'A1 range, header and totals rows included' }),
    headerRow: Type.Boolean(),
    totalsRow: Type.Boolean(),
    columns: Type.Array(Type.String(), { description: 'Column names' }),
    provenance: ProvenanceSchema,
  },
  { additionalProperties: false, description: 'An Excel table (ListObject) defined on the sheet; its cells are in rows' },
);

export const OfficeSheet = Type.Object(
  {
    index: Type.Integer(),
    name: Type.String(),
    state: Type.Union([Type.Literal('visible'), Type.Literal('hidden'), Type.Literal('veryHidden')]),
    hidden: Type.Boolean(),
    usedRange: Nullable(Type.String({ description: 'e.g. A1:D20; null for an empty sheet' })),
    rowCount: Type.Integer(),
    columnCount: Type.Integer(),
    cellCount: Type.Integer(),
    mergedRanges: Type.Array(Type.String()),
    tables: Type.Array(OfficeSheetTable),
    provenance: ProvenanceSchema,
    rows: Type.Array(Type.Object({ row: Type.Integer({ minimum: 1 }), cells: Type.Array(OfficeCell) }, { additionalProperties: false })),
  },
  {
    additionalProperties: false,
    description: 'provenance: the sheet and its used range; a cell is located by its sheet and its ref, so cells and rows carry no provenance of their own',
  },
);

export const SpreadsheetContent = Type.Object(
  { kind: Type.Literal('spreadsheet'), properties: OfficeProperties, sheets: Type.Array(OfficeSheet) },
  { additionalProperties: false },
);

export const OfficeSlideTable = Type.Object(
  {
    rowCount: Type.Integer(),
    columnCount: Type.Integer(),
    headerRows: Type.Integer({ minimum: 0, description: 'Leading rows marked as the header (PPTX firstRow, ODP use-first-row-styles)' }),
    provenance: ProvenanceSchema,
    rows: Type.Array(
      Type.Array(
        Type.Object(
          { row: Type.Integer(), col: Type.Integer(), rowSpan: Type.Integer({ minimum: 1 }), colSpan: Type.Integer({ minimum: 1 }), text: Type.String() },
          { additionalProperties: false },
        ),
      ),
    ),
  },
  { additionalProperties: false },
);

export const OfficeSlide = Type.Object(
  {
    index: Type.Integer(),
    number: Type.Integer({ minimum: 1 }),
    hidden: Type.Boolean(),
    title: Nullable(Type.String()),
    textBlocks: Type.Array(
      Type.Object(
        {
          shape: Nullable(Type.String()),
          placeholder: Nullable(Type.String({ description: 'title, ctrTitle, subTitle, body, …' })),
          paragraphs: Type.Array(Type.Object({ text: Type.String(), level: Type.Integer({ minimum: 0 }) }, { additionalProperties: false })),
          text: Type.String(),
          provenance: ProvenanceSchema,
        },
        { additionalProperties: false },
      ),
    ),
    tables: Type.Array(OfficeSlideTable),
    images: Type.Array(
      Type.Object({ name: Nullable(Type.String()), description: Nullable(Type.String()), target: Nullable(Type.String()) }, { additionalProperties: false }),
    ),
    links: Type.Array(OfficeLink),
    notes: Nullable(Type.String()),
    provenance: ProvenanceSchema,
  },
  { additionalProperties: false },
);

export const PresentationContent = Type.Object(
  { kind: Type.Literal('presentation'), properties: OfficeProperties, slides: Type.Array(OfficeSlide) },
  { additionalProperties: false },
);

export const OfficeContent = Type.Union([DocumentContent, SpreadsheetContent, PresentationContent], { $id: 'OfficeContent' });

export type OfficeContent = Static<typeof OfficeContent>;
export type OfficeBlock = Static<typeof OfficeBlock>;
export type OfficePropertiesT = Static<typeof OfficeProperties>;
export type OfficeCellT = Static<typeof OfficeCell>;
export type OfficeSlideT = Static<typeof OfficeSlide>;
export type OfficeSlideTableT = Static<typeof OfficeSlideTable>;
export type OfficeSheetTableT = Static<typeof OfficeSheetTable>;
export type OfficeImageT = Static<typeof OfficeImage>;
