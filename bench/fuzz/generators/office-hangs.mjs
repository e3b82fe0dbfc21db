// Tiny Office/OpenDocument files whose declared counts hang LibreOffice 7.4 (measured with
// soffice --convert-to, see docs/formats/office.md): each must be refused in milliseconds,
// before any soffice process starts. Used by the office tests and as fuzz seeds, so that
// mutations explore around the counts (a smaller \bin, a column count just under the limit).
import { zipOf } from '../zip.mjs';

const RTF_HEAD = String.raw`{\rtf1\ansi\deff0{\fonttbl{\f0 Times New Roman;}}`;
const rtf = (body) => Buffer.from(`${RTF_HEAD}${body}}`, 'latin1');

/** \bin announcing 2³¹−1 bytes that never follow: LibreOffice reads them one by one (121 s, 0.9 GB, two processes). */
export function rtfBinPastEnd(n = 2147483647) {
  return rtf(String.raw`\pard Before {\bin${n} abc} after.\par`);
}

/** A table nesting level of 2³¹−1: LibreOffice allocates a buffer per level (hours). */
export function rtfDeepTableLevel(n = 2147483647) {
  return rtf(String.raw`\pard\intbl\itap${n} cell\nestcell{\*\nesttableprops\nestrow}\row\pard after\par`);
}

/** Groups nested `depth` levels deep, each setting bold: time grows with the square of the depth (50 000: over 30 s). */
export function rtfDeepGroups(depth = 50_000) {
  return rtf(String.raw`\pard ` + String.raw`{\b `.repeat(depth) + 'x' + '}'.repeat(depth) + String.raw`\par`);
}

/** Twenty sections of 32 767 columns each (one takes 7–18 s to lay out; twenty never finish). */
export function rtfManyColumns(columns = 32767, sections = 20) {
  const section = String.raw`\sectd\sbknone\cols${columns} text\par`;
  return rtf(section + String.raw`\sect`.concat(section).repeat(sections - 1));
}

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>';

/** A DOCX whose sections ask for 32 767 columns each (rendering it to count pages never finishes). */
export function docxManyColumns(columns = 32767, sections = 20) {
  const sect = `<w:p><w:pPr><w:sectPr><w:type w:val="continuous"/><w:cols w:num="${columns}" w:space="0"/></w:sectPr></w:pPr><w:r><w:t>text</w:t></w:r></w:p>`;
  return zipOf({
    '[Content_Types].xml': `${XML}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
    '_rels/.rels': `${XML}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`,
    'word/document.xml': `${XML}<w:document xmlns:w="${W}"><w:body>${sect.repeat(sections)}<w:sectPr><w:cols w:num="${columns}"/></w:sectPr></w:body></w:document>`,
  });
}

const ODF_NS = [
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"',
  'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"',
  'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"',
  'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"',
  'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"',
].join(' ');

/** A flat ODT whose twenty sections use a style of 32 767 columns (never finishes). */
export function fodtManyColumns(columns = 32767, sections = 20) {
  const body = Array.from({ length: sections }, (_, i) => `<text:section text:style-name="Wide" text:name="S${i}"><text:p>text</text:p></text:section>`).join(
    '',
  );
  return Buffer.from(
    `${XML}<office:document ${ODF_NS} office:version="1.2" office:mimetype="application/vnd.oasis.opendocument.text"><office:automatic-styles><style:style style:name="Wide" style:family="section"><style:section-properties><style:columns fo:column-count="${columns}"/></style:section-properties></style:style></office:automatic-styles><office:body><office:text>${body}</office:text></office:body></office:document>`,
  );
}

const fodsTable = (rows, columns) =>
  `<table:table table:name="Sheet1"><table:table-row table:number-rows-repeated="${rows}"><table:table-cell table:number-columns-repeated="${columns}" office:value-type="float" office:value="1"><text:p>1</text:p></table:table-cell></table:table-row></table:table>`;

/** A 1 KB flat ODS asking for the value 1 in every cell of a 1 048 576 × 16 384 sheet (never finishes). */
export function fodsRepeatedValue(rows = 1048576, columns = 16384) {
  return Buffer.from(
    `${XML}<office:document ${ODF_NS} office:version="1.2" office:mimetype="application/vnd.oasis.opendocument.spreadsheet"><office:body><office:spreadsheet>${fodsTable(rows, columns)}</office:spreadsheet></office:body></office:document>`,
  );
}

/** The same sheet in an ODS package. */
export function odsRepeatedValue(rows = 1048576, columns = 16384) {
  return zipOf({
    mimetype: 'application/vnd.oasis.opendocument.spreadsheet',
    'META-INF/manifest.xml': `${XML}<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>`,
    'content.xml': `${XML}<office:document-content ${ODF_NS} office:version="1.2"><office:body><office:spreadsheet>${fodsTable(rows, columns)}</office:spreadsheet></office:body></office:document-content>`,
  });
}

/** Fuzz seeds: one of each, with the documentType the fuzzer uploads it as. */
export function officeHangSeeds() {
  return [
    { name: 'hang_bin_past_end.rtf', bytes: rtfBinPastEnd() },
    { name: 'hang_table_level.rtf', bytes: rtfDeepTableLevel() },
    { name: 'hang_deep_groups.rtf', bytes: rtfDeepGroups() },
    { name: 'hang_columns.rtf', bytes: rtfManyColumns() },
    { name: 'hang_columns.docx', bytes: docxManyColumns() },
    { name: 'hang_columns.fodt', bytes: fodtManyColumns() },
    { name: 'hang_repeated_value.fods', bytes: fodsRepeatedValue() },
    { name: 'hang_repeated_value.ods', bytes: odsRepeatedValue() },
  ];
}
