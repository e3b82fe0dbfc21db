// Generated Office/OpenDocument seeds: OOXML packages (DOCX, XLSX, PPTX), an ODT and an
// RTF, and OLE2 containers named .doc/.xls/.ppt (minimal streams: enough for the container
// readers and LibreOffice's sniffing, so mutations reach the FAT and directory code).
import { zipOf } from '../zip.mjs';
import { buildOle } from './ole.mjs';

const XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PKG_REL = 'http://schemas.openxmlformats.org/package/2006/relationships';
const CT = 'http://schemas.openxmlformats.org/package/2006/content-types';

const rels = (list) =>
  `${XML}<Relationships xmlns="${PKG_REL}">${list.map(([id, type, target]) => `<Relationship Id="${id}" Type="${REL}/${type}" Target="${target}"/>`).join('')}</Relationships>`;
const types = (overrides) =>
  `${XML}<Types xmlns="${CT}"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>${overrides.map(([part, type]) => `<Override PartName="${part}" ContentType="${type}"/>`).join('')}</Types>`;
const CORE = `${XML}<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><dc:title>Generated</dc:title><dc:creator>fuzz</dc:creator><dcterms:created xsi:type="dcterms:W3CDTF">2024-01-01T00:00:00Z</dcterms:created></cp:coreProperties>`;
const APP = (pages) =>
  `${XML}<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties"><Application>Microsoft Office Word</Application><Pages>${pages}</Pages></Properties>`;

function docx() {
  const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
  const p = (t, style) => `<w:p>${style ? `<w:pPr><w:pStyle w:val="${style}"/></w:pPr>` : ''}<w:r><w:t xml:space="preserve">${t}</w:t></w:r></w:p>`;
  const li = (t) =>
    `<w:p><w:pPr><w:pStyle w:val="ListParagraph"/><w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr></w:pPr><w:r><w:t>${t}</w:t></w:r></w:p>`;
  const cell = (t) => `<w:tc><w:tcPr><w:tcW w:w="2000" w:type="dxa"/></w:tcPr>${p(t)}</w:tc>`;
  const table = `<w:tbl><w:tblPr><w:tblW w:w="4000" w:type="dxa"/></w:tblPr><w:tblGrid><w:gridCol w:w="2000"/><w:gridCol w:w="2000"/></w:tblGrid>${[
    ['A', 'B'],
    ['1', '2'],
  ]
    .map((r) => `<w:tr>${r.map(cell).join('')}</w:tr>`)
    .join('')}</w:tbl>`;
  const body = [
    p('Generated Document', 'Heading1'),
    p('First paragraph with a footnote.'),
    li('one'),
    li('two'),
    table,
    `<w:p><w:r><w:br w:type="page"/></w:r></w:p>`,
    p('Second page', 'Heading2'),
    p('Closing paragraph.'),
  ].join('');
  const doc = `${XML}<w:document xmlns:w="${W}" xmlns:r="${REL}"><w:body>${body}<w:sectPr><w:pgSz w:w="12240" w:h="15840"/></w:sectPr></w:body></w:document>`;
  const styles = `${XML}<w:styles xmlns:w="${W}"><w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style><w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/><w:pPr><w:outlineLvl w:val="1"/></w:pPr></w:style><w:style w:type="paragraph" w:styleId="ListParagraph"><w:name w:val="List Paragraph"/></w:style></w:styles>`;
  const numbering = `${XML}<w:numbering xmlns:w="${W}"><w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/></w:lvl></w:abstractNum><w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num></w:numbering>`;
  return zipOf({
    '[Content_Types].xml': types([
      ['/word/document.xml', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml'],
      ['/word/styles.xml', 'application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml'],
      ['/word/numbering.xml', 'application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml'],
      ['/docProps/core.xml', 'application/vnd.openxmlformats-package.core-properties+xml'],
      ['/docProps/app.xml', 'application/vnd.openxmlformats-officedocument.extended-properties+xml'],
    ]),
    '_rels/.rels': rels([
      ['rId1', 'officeDocument', 'word/document.xml'],
      ['rId2', 'extended-properties', 'docProps/app.xml'],
    ]).replace(
      '</Relationships>',
      `<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/></Relationships>`,
    ),
    'word/document.xml': doc,
    'word/_rels/document.xml.rels': rels([
      ['rId1', 'styles', 'styles.xml'],
      ['rId2', 'numbering', 'numbering.xml'],
    ]),
    'word/styles.xml': styles,
    'word/numbering.xml': numbering,
    'docProps/core.xml': CORE,
    'docProps/app.xml': APP(2),
  });
}

function xlsx() {
  const S = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
  const rows = [];
  for (let r = 1; r <= 20; r++) {
    rows.push(
      `<row r="${r}"><c r="A${r}" t="s"><v>${r % 3}</v></c><c r="B${r}"><v>${r * 1.5}</v></c><c r="C${r}" t="b"><v>${r % 2}</v></c><c r="D${r}"><f>B${r}*2</f><v>${r * 3}</v></c><c r="E${r}" t="inlineStr"><is><t>inline ${r}</t></is></c></row>`,
    );
  }
  const sheet = (data) =>
    `${XML}<worksheet xmlns="${S}" xmlns:r="${REL}"><dimension ref="A1:E20"/><sheetData>${data}</sheetData><mergeCells count="1"><mergeCell ref="F1:G2"/></mergeCells></worksheet>`;
  return zipOf({
    '[Content_Types].xml': types([
      ['/xl/workbook.xml', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml'],
      ['/xl/worksheets/sheet1.xml', 'application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml'],
      ['/xl/worksheets/sheet2.xml', 'application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml'],
      ['/xl/sharedStrings.xml', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml'],
      ['/xl/styles.xml', 'application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml'],
    ]),
    '_rels/.rels': rels([['rId1', 'officeDocument', 'xl/workbook.xml']]),
    'xl/workbook.xml': `${XML}<workbook xmlns="${S}" xmlns:r="${REL}"><sheets><sheet name="Data" sheetId="1" r:id="rId1"/><sheet name="Hidden" sheetId="2" state="hidden" r:id="rId2"/></sheets></workbook>`,
    'xl/_rels/workbook.xml.rels': rels([
      ['rId1', 'worksheet', 'worksheets/sheet1.xml'],
      ['rId2', 'worksheet', 'worksheets/sheet2.xml'],
      ['rId3', 'sharedStrings', 'sharedStrings.xml'],
      ['rId4', 'styles', 'styles.xml'],
    ]),
    'xl/worksheets/sheet1.xml': sheet(rows.join('')),
    'xl/worksheets/sheet2.xml': sheet('<row r="1"><c r="A1"><v>42</v></c></row>'),
    'xl/sharedStrings.xml': `${XML}<sst xmlns="${S}" count="3" uniqueCount="3"><si><t>zero</t></si><si><t>one</t></si><si><r><t>two</t></r></si></sst>`,
    'xl/styles.xml': `${XML}<styleSheet xmlns="${S}"><numFmts count="1"><numFmt numFmtId="164" formatCode="0.00"/></numFmts><fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts><fills count="1"><fill><patternFill patternType="none"/></fill></fills><borders count="1"><border/></borders><cellStyleXfs count="1"><xf/></cellStyleXfs><cellXfs count="1"><xf numFmtId="0"/></cellXfs></styleSheet>`,
  });
}

function pptx() {
  const P = 'http://schemas.openxmlformats.org/presentationml/2006/main';
  const A = 'http://schemas.openxmlformats.org/drawingml/2006/main';
  const sp = (id, type, paras) =>
    `<p:sp><p:nvSpPr><p:cNvPr id="${id}" name="s${id}"/><p:cNvSpPr/><p:nvPr><p:ph type="${type}"/></p:nvPr></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/>${paras.map((t, i) => `<a:p><a:pPr lvl="${i % 2}"/><a:r><a:t>${t}</a:t></a:r></a:p>`).join('')}</p:txBody></p:sp>`;
  const slide = (title, bullets) =>
    `${XML}<p:sld xmlns:p="${P}" xmlns:a="${A}" xmlns:r="${REL}"><p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>${sp(2, 'title', [title])}${sp(3, 'body', bullets)}</p:spTree></p:cSld></p:sld>`;
  return zipOf({
    '[Content_Types].xml': types([
      ['/ppt/presentation.xml', 'application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml'],
      ['/ppt/slides/slide1.xml', 'application/vnd.openxmlformats-officedocument.presentationml.slide+xml'],
      ['/ppt/slides/slide2.xml', 'application/vnd.openxmlformats-officedocument.presentationml.slide+xml'],
      ['/ppt/notesSlides/notesSlide1.xml', 'application/vnd.openxmlformats-officedocument.presentationml.notesSlide+xml'],
    ]),
    '_rels/.rels': rels([['rId1', 'officeDocument', 'ppt/presentation.xml']]),
    'ppt/presentation.xml': `${XML}<p:presentation xmlns:p="${P}" xmlns:a="${A}" xmlns:r="${REL}"><p:sldIdLst><p:sldId id="256" r:id="rId2"/><p:sldId id="257" r:id="rId3"/></p:sldIdLst><p:sldSz cx="9144000" cy="6858000"/></p:presentation>`,
    'ppt/_rels/presentation.xml.rels': rels([
      ['rId2', 'slide', 'slides/slide1.xml'],
      ['rId3', 'slide', 'slides/slide2.xml'],
    ]),
    'ppt/slides/slide1.xml': slide('First slide', ['point one', 'sub point', 'point two']),
    'ppt/slides/_rels/slide1.xml.rels': rels([['rId1', 'notesSlide', '../notesSlides/notesSlide1.xml']]),
    'ppt/slides/slide2.xml': slide('Second slide', ['only point']),
    'ppt/notesSlides/notesSlide1.xml': `${XML}<p:notes xmlns:p="${P}" xmlns:a="${A}"><p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>${sp(2, 'body', ['speaker notes'])}</p:spTree></p:cSld></p:notes>`,
  });
}

function odt() {
  const ns =
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0" xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"';
  return zipOf({
    mimetype: 'application/vnd.oasis.opendocument.text',
    'META-INF/manifest.xml': `${XML}<manifest:manifest ${ns} manifest:version="1.2"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/><manifest:file-entry manifest:full-path="meta.xml" manifest:media-type="text/xml"/></manifest:manifest>`,
    'content.xml': `${XML}<office:document-content ${ns} office:version="1.2"><office:body><office:text><text:h text:outline-level="1">Generated ODT</text:h><text:p>A paragraph.</text:p><text:list><text:list-item><text:p>item</text:p></text:list-item></text:list><table:table table:name="T"><table:table-column/><table:table-row><table:table-cell><text:p>cell</text:p></table:table-cell></table:table-row></table:table></office:text></office:body></office:document-content>`,
    'meta.xml': `${XML}<office:document-meta ${ns} office:version="1.2"><office:meta><meta:document-statistic meta:page-count="1"/></office:meta></office:document-meta>`,
  });
}

const RTF = String.raw`{\rtf1\ansi\ansicpg1252\deff0{\fonttbl{\f0 Times New Roman;}{\f1 Arial;}}{\info{\title Generated RTF}{\author fuzz}}
{\pard\b\fs32 Generated RTF\par}
{\pard\f1 Plain paragraph with \i italic\i0 , caf\'e9 and a \u8364? sign.\par}
\trowd\cellx2000\cellx4000 \intbl A\cell B\cell\row
\trowd\cellx2000\cellx4000 \intbl 1\cell 2\cell\row
{\pard{\field{\*\fldinst HYPERLINK "https://example.org"}{\fldrslt link}}\par}
}`;

/** A FIB-shaped WordDocument stream: magic 0xA5EC, nFib 0xC1 (Word 97), rest zeros/text. */
function doc() {
  const word = Buffer.alloc(6000);
  word.writeUInt16LE(0xa5ec, 0);
  word.writeUInt16LE(0x00c1, 2);
  word.writeUInt16LE(0x0200, 10); // fWhichTblStm: 1Table
  Buffer.from('Generated Word 97 text.', 'latin1').copy(word, 0x600);
  return buildOle({ '/WordDocument': word, '/1Table': Buffer.alloc(512, 0), '/\u0005SummaryInformation': Buffer.alloc(200, 0) });
}

/** A BIFF8 workbook: BOF, one BOUNDSHEET, EOF; then a sheet with a NUMBER and a LABEL cell. */
function xls() {
  const rec = (type, data) => {
    const h = Buffer.alloc(4);
    h.writeUInt16LE(type, 0);
    h.writeUInt16LE(data.length, 2);
    return Buffer.concat([h, data]);
  };
  const bof = (dt) => {
    const b = Buffer.alloc(16);
    b.writeUInt16LE(0x0600, 0);
    b.writeUInt16LE(dt, 2);
    b.writeUInt16LE(0x0dbb, 4);
    b.writeUInt16LE(0x07cc, 6);
    return rec(0x0809, b);
  };
  const name = Buffer.from('Sheet1', 'latin1');
  const globalsWithoutSheet = Buffer.concat([bof(0x0005), rec(0x0042, Buffer.from([0xe4, 0x04]))]);
  const sheetRecLen = 4 + 8 + name.length;
  const eof = rec(0x000a, Buffer.alloc(0));
  const sheetStart = globalsWithoutSheet.length + sheetRecLen + eof.length;
  const bs = Buffer.alloc(8);
  bs.writeUInt32LE(sheetStart, 0);
  bs.writeUInt8(name.length, 6);
  const boundsheet = rec(0x0085, Buffer.concat([bs, name]));
  const number = Buffer.alloc(14);
  number.writeDoubleLE(3.25, 6);
  const label = Buffer.concat([Buffer.from([0, 0, 1, 0, 0, 0, 5, 0, 0]), Buffer.from('hello', 'latin1')]);
  const dims = Buffer.alloc(14);
  dims.writeUInt32LE(2, 4);
  dims.writeUInt16LE(2, 10);
  const sheet = Buffer.concat([bof(0x0010), rec(0x0200, dims), rec(0x0203, number), rec(0x0204, label), eof]);
  const stream = Buffer.concat([
    globalsWithoutSheet,
    boundsheet,
    eof,
    sheet,
    Buffer.alloc(4096 - ((globalsWithoutSheet.length + boundsheet.length + eof.length + sheet.length) % 4096)),
  ]);
  return buildOle({ '/Workbook': stream });
}

/** PowerPoint streams: a Current User atom and a document stream of zeroed records. */
function ppt() {
  const cu = Buffer.alloc(48);
  cu.writeUInt16LE(0x0000, 0);
  cu.writeUInt16LE(0x0ff6, 2); // RT_CurrentUserAtom
  cu.writeUInt32LE(40, 4);
  cu.writeUInt32LE(20, 8);
  cu.writeUInt32LE(0xe391c05f, 12); // not encrypted
  const docStream = Buffer.alloc(5000);
  docStream.writeUInt16LE(0x000f, 0);
  docStream.writeUInt16LE(0x03e8, 2); // RT_Document
  docStream.writeUInt32LE(4992, 4);
  return buildOle({ '/Current User': cu, '/PowerPoint Document': docStream });
}

export function officeSeeds() {
  return [
    { name: 'gen_doc.docx', bytes: docx() },
    { name: 'gen_book.xlsx', bytes: xlsx() },
    { name: 'gen_slides.pptx', bytes: pptx() },
    { name: 'gen_text.odt', bytes: odt() },
    { name: 'gen_text.rtf', bytes: Buffer.from(RTF, 'latin1') },
    { name: 'gen_word97.doc', bytes: doc() },
    { name: 'gen_biff8.xls', bytes: xls() },
    { name: 'gen_slides.ppt', bytes: ppt() },
  ];
}
