// Spreadsheets and presentations written by the tests, part by part, so every merged cell,
// covered cell, table flag and damaged part is exactly what the test says it is.
import { makeZip, type ZipMember } from '../../helpers/zip.js';

const XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const part = (name: string, text: string): ZipMember => ({ name, data: Buffer.from(text, 'utf8'), deflate: true });
const rels = (items: { id: string; type: string; target: string }[]) =>
  `${XML}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${items
    .map((r) => `<Relationship Id="${r.id}" Type="${REL}/${r.type}" Target="${r.target}"/>`)
    .join('')}</Relationships>`;

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

// ---------------------------------------------------------------- XLSX

export interface SheetSpec {
  name: string;
  state?: 'hidden' | 'veryHidden';
  /** Cells by A1 reference: a string (inline string) or a number. */
  cells: Record<string, string | number>;
  merges?: string[];
  /** An Excel table over `ref` whose first row holds the column names. */
  table?: { name: string; ref: string; columns: string[] };
}

function sheetXml(s: SheetSpec, tableRel: boolean): string {
  const byRow = new Map<number, [string, string | number][]>();
  for (const [ref, v] of Object.entries(s.cells)) {
    const row = Number(/\d+$/.exec(ref)![0]);
    byRow.set(row, [...(byRow.get(row) ?? []), [ref, v]]);
  }
  const rows = [...byRow.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(
      ([r, cells]) =>
        `<row r="${r}">${cells
          .map(([ref, v]) => (typeof v === 'number' ? `<c r="${ref}"><v>${v}</v></c>` : `<c r="${ref}" t="inlineStr"><is><t>${esc(v)}</t></is></c>`))
          .join('')}</row>`,
    )
    .join('');
  const merges = s.merges?.length ? `<mergeCells count="${s.merges.length}">${s.merges.map((m) => `<mergeCell ref="${m}"/>`).join('')}</mergeCells>` : '';
  const tableParts = tableRel ? `<tableParts count="1"><tablePart r:id="rId1"/></tableParts>` : '';
  return `${XML}<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="${REL}"><sheetData>${rows}</sheetData>${merges}${tableParts}</worksheet>`;
}

/** An .xlsx holding `sheets` in order. */
export function xlsx(sheets: SheetSpec[]): Buffer {
  const members: ZipMember[] = [];
  const overrides: string[] = [
    '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>',
  ];
  let tableNo = 0;
  sheets.forEach((s, i) => {
    const n = i + 1;
    overrides.push(
      `<Override PartName="/xl/worksheets/sheet${n}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`,
    );
    members.push(part(`xl/worksheets/sheet${n}.xml`, sheetXml(s, !!s.table)));
    if (s.table) {
      const t = ++tableNo;
      overrides.push(`<Override PartName="/xl/tables/table${t}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.table+xml"/>`);
      members.push(part(`xl/worksheets/_rels/sheet${n}.xml.rels`, rels([{ id: 'rId1', type: 'table', target: `../tables/table${t}.xml` }])));
      members.push(
        part(
          `xl/tables/table${t}.xml`,
          `${XML}<table xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" id="${t}" name="${s.table.name}" displayName="${s.table.name}" ref="${s.table.ref}" headerRowCount="1"><autoFilter ref="${s.table.ref}"/><tableColumns count="${s.table.columns.length}">${s.table.columns
            .map((c, k) => `<tableColumn id="${k + 1}" name="${esc(c)}"/>`)
            .join(
              '',
            )}</tableColumns><tableStyleInfo name="TableStyleMedium2" showFirstColumn="0" showLastColumn="0" showRowStripes="1" showColumnStripes="0"/></table>`,
        ),
      );
    }
  });
  return makeZip([
    part(
      '[Content_Types].xml',
      `${XML}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>${overrides.join('')}</Types>`,
    ),
    part('_rels/.rels', rels([{ id: 'rId1', type: 'officeDocument', target: 'xl/workbook.xml' }])),
    part(
      'xl/workbook.xml',
      `${XML}<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="${REL}"><sheets>${sheets
        .map((s, i) => `<sheet name="${esc(s.name)}" sheetId="${i + 1}"${s.state ? ` state="${s.state}"` : ''} r:id="rId${i + 1}"/>`)
        .join('')}</sheets></workbook>`,
    ),
    part('xl/_rels/workbook.xml.rels', rels(sheets.map((_, i) => ({ id: `rId${i + 1}`, type: 'worksheet', target: `worksheets/sheet${i + 1}.xml` })))),
    ...members,
  ]);
}

// ---------------------------------------------------------------- PPTX

const A = 'http://schemas.openxmlformats.org/drawingml/2006/main';
const P = 'http://schemas.openxmlformats.org/presentationml/2006/main';

export interface TableCellSpec {
  text?: string;
  gridSpan?: number;
  rowSpan?: number;
  hMerge?: boolean;
  vMerge?: boolean;
}

export type SlideSpec =
  | { title?: string; body?: string; table?: { firstRow: boolean; rows: TableCellSpec[][] }; hidden?: boolean }
  /** A slide part cut short (not well-formed XML). */
  | { damaged: true }
  /** A slide the presentation lists whose part is not in the package. */
  | { missing: true };

const txBody = (text: string) => `<a:txBody><a:bodyPr/><a:p><a:r><a:t>${esc(text)}</a:t></a:r></a:p></a:txBody>`;

const shape = (id: number, ph: string | null, text: string) =>
  `<p:sp><p:nvSpPr><p:cNvPr id="${id}" name="Shape ${id}"/><p:cNvSpPr/><p:nvPr>${ph ? `<p:ph type="${ph}"/>` : ''}</p:nvPr></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:p><a:r><a:t>${esc(text)}</a:t></a:r></a:p></p:txBody></p:sp>`;

function tableXml(t: { firstRow: boolean; rows: TableCellSpec[][] }): string {
  const cols = t.rows[0].length;
  const cell = (c: TableCellSpec) =>
    `<a:tc${c.gridSpan ? ` gridSpan="${c.gridSpan}"` : ''}${c.rowSpan ? ` rowSpan="${c.rowSpan}"` : ''}${c.hMerge ? ' hMerge="1"' : ''}${c.vMerge ? ' vMerge="1"' : ''}>${txBody(c.text ?? '')}<a:tcPr/></a:tc>`;
  return `<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="9" name="Table 1"/><p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr><p:xfrm><a:off x="0" y="0"/><a:ext cx="6000000" cy="2000000"/></p:xfrm><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/table"><a:tbl><a:tblPr${t.firstRow ? ' firstRow="1"' : ''}/><a:tblGrid>${'<a:gridCol w="2000000"/>'.repeat(cols)}</a:tblGrid>${t.rows
    .map((r) => `<a:tr h="370840">${r.map(cell).join('')}</a:tr>`)
    .join('')}</a:tbl></a:graphicData></a:graphic></p:graphicFrame>`;
}

/** A .pptx of `slides` (no masters or layouts: the reader does not need them). */
export function pptx(slides: SlideSpec[]): Buffer {
  const members: ZipMember[] = [];
  slides.forEach((s, i) => {
    const name = `ppt/slides/slide${i + 1}.xml`;
    if ('missing' in s) return;
    if ('damaged' in s) {
      members.push(part(name, `${XML}<p:sld xmlns:p="${P}"><p:cSld><p:spTree><p:sp`));
      return;
    }
    const shapes = [s.title ? shape(2, 'title', s.title) : '', s.body ? shape(3, null, s.body) : '', s.table ? tableXml(s.table) : ''].join('');
    members.push(
      part(
        name,
        `${XML}<p:sld xmlns:a="${A}" xmlns:r="${REL}" xmlns:p="${P}"${s.hidden ? ' show="0"' : ''}><p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>${shapes}</p:spTree></p:cSld></p:sld>`,
      ),
    );
  });
  return makeZip([
    part(
      '[Content_Types].xml',
      `${XML}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/ppt/presentation.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/>${slides
        .map(
          (_, i) => `<Override PartName="/ppt/slides/slide${i + 1}.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.slide+xml"/>`,
        )
        .join('')}</Types>`,
    ),
    part('_rels/.rels', rels([{ id: 'rId1', type: 'officeDocument', target: 'ppt/presentation.xml' }])),
    part(
      'ppt/presentation.xml',
      `${XML}<p:presentation xmlns:a="${A}" xmlns:r="${REL}" xmlns:p="${P}"><p:sldIdLst>${slides
        .map((_, i) => `<p:sldId id="${256 + i}" r:id="rId${i + 1}"/>`)
        .join('')}</p:sldIdLst><p:sldSz cx="9144000" cy="6858000"/></p:presentation>`,
    ),
    part('ppt/_rels/presentation.xml.rels', rels(slides.map((_, i) => ({ id: `rId${i + 1}`, type: 'slide', target: `slides/slide${i + 1}.xml` })))),
    ...members,
  ]);
}

// ---------------------------------------------------------------- OpenDocument

const ODF_NS =
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0"';

function odf(mimetype: string, body: string): Buffer {
  return makeZip([
    { name: 'mimetype', data: Buffer.from(mimetype) },
    part(
      'META-INF/manifest.xml',
      `${XML}<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2"><manifest:file-entry manifest:full-path="/" manifest:media-type="${mimetype}"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>`,
    ),
    part('content.xml', `${XML}<office:document-content ${ODF_NS} office:version="1.2"><office:body>${body}</office:body></office:document-content>`),
  ]);
}

/** An ODF table cell: text, or covered (`null`); `span` is [columns, rows]. */
export type OdfCell = { text: string; span?: [number, number] } | { covered: true; text?: string };

function odfRows(rows: OdfCell[][]): string {
  return rows
    .map(
      (r) =>
        `<table:table-row>${r
          .map((c) => {
            const p = c.text !== undefined ? `<text:p>${esc(c.text)}</text:p>` : '';
            if ('covered' in c) return `<table:covered-table-cell${c.text !== undefined ? ' office:value-type="string"' : ''}>${p}</table:covered-table-cell>`;
            const span = c.span ? ` table:number-columns-spanned="${c.span[0]}" table:number-rows-spanned="${c.span[1]}"` : '';
            return `<table:table-cell office:value-type="string"${span}>${p}</table:table-cell>`;
          })
          .join('')}</table:table-row>`,
    )
    .join('');
}

/** An .ods of named sheets. */
export function ods(sheets: { name: string; rows: OdfCell[][] }[]): Buffer {
  return odf(
    'application/vnd.oasis.opendocument.spreadsheet',
    `<office:spreadsheet>${sheets.map((s) => `<table:table table:name="${esc(s.name)}">${odfRows(s.rows)}</table:table>`).join('')}</office:spreadsheet>`,
  );
}

/** An .odp with one table per slide (or none), its first row marked as the header when `firstRow`. */
export function odp(slides: ({ firstRow: boolean; rows: OdfCell[][] } | null)[]): Buffer {
  return odf(
    'application/vnd.oasis.opendocument.presentation',
    `<office:presentation>${slides
      .map(
        (t, i) =>
          `<draw:page draw:name="page${i + 1}">${
            t
              ? `<draw:frame svg:x="1cm" svg:y="1cm" svg:width="20cm" svg:height="6cm"><table:table table:template-name="default" table:use-first-row-styles="${t.firstRow}">${'<table:table-column/>'.repeat(
                  t.rows[0].length,
                )}${odfRows(t.rows)}</table:table></draw:frame>`
              : ''
          }</draw:page>`,
      )
      .join('')}</office:presentation>`,
  );
}
