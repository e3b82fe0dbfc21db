// Generated PDF seeds written object by object: text with headings and a list over two
// pages (with an outline and Info), two columns, and a ruled table in a Flate stream.
import zlib from 'node:zlib';

/** A PDF from page content streams (Helvetica /F1, Helvetica-Bold /F2); a correct xref. */
export function buildPdf(pages, { compress = false, title = null, outline = [] } = {}) {
  const objects = [];
  const add = (body) => objects.push(body) && objects.length;
  const catalog = add(null);
  const pagesObj = add(null);
  const f1 = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  const f2 = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>');
  const kids = [];
  for (const content of pages) {
    const raw = Buffer.from(content, 'latin1');
    const data = compress ? zlib.deflateSync(raw) : raw;
    const stream = add({ dict: `<< /Length ${data.length}${compress ? ' /Filter /FlateDecode' : ''} >>`, data });
    kids.push(
      add(`<< /Type /Page /Parent ${pagesObj} 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${f1} 0 R /F2 ${f2} 0 R >> >> /Contents ${stream} 0 R >>`),
    );
  }
  objects[pagesObj - 1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`;
  let outlines = '';
  if (outline.length) {
    const root = add(null);
    const items = outline.map(() => add(null));
    items.forEach((id, i) => {
      const { title: t, page } = outline[i];
      objects[id - 1] =
        `<< /Title (${t}) /Parent ${root} 0 R${i > 0 ? ` /Prev ${items[i - 1]} 0 R` : ''}${i < items.length - 1 ? ` /Next ${items[i + 1]} 0 R` : ''} /Dest [${kids[page]} 0 R /XYZ 0 792 0] >>`;
    });
    objects[root - 1] = `<< /Type /Outlines /First ${items[0]} 0 R /Last ${items[items.length - 1]} 0 R /Count ${items.length} >>`;
    outlines = ` /Outlines ${root} 0 R`;
  }
  objects[catalog - 1] = `<< /Type /Catalog /Pages ${pagesObj} 0 R${outlines} >>`;
  const info = title ? add(`<< /Title (${title}) /Author (docparse fuzz) /Producer (hand-written) /CreationDate (D:20240101120000Z) >>`) : 0;

  const parts = [Buffer.from('%PDF-1.5\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let size = parts[0].length;
  const offsets = [];
  objects.forEach((body, i) => {
    offsets.push(size);
    const chunk =
      typeof body === 'string'
        ? Buffer.from(`${i + 1} 0 obj\n${body}\nendobj\n`, 'latin1')
        : Buffer.concat([Buffer.from(`${i + 1} 0 obj\n${body.dict}\nstream\n`, 'latin1'), body.data, Buffer.from('\nendstream\nendobj\n', 'latin1')]);
    parts.push(chunk);
    size += chunk.length;
  });
  const xref = [`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`, ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)].join('');
  const trailer = `trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R${info ? ` /Info ${info} 0 R` : ''} >>\nstartxref\n${size}\n%%EOF\n`;
  parts.push(Buffer.from(xref + trailer, 'latin1'));
  return Buffer.concat(parts);
}

const text = (font, size, x, y, s) => `BT /${font} ${size} Tf ${x} ${y} Td (${s}) Tj ET`;

function textPages() {
  const p1 = [text('F2', 20, 72, 720, 'Generated Report'), text('F2', 14, 72, 690, '1. Introduction')];
  let y = 670;
  for (let i = 0; i < 12; i++, y -= 16) p1.push(text('F1', 11, 72, y, `Paragraph line ${i + 1}: the quick brown fox jumps over the lazy dog.`));
  for (let i = 0; i < 4; i++, y -= 16) p1.push(text('F1', 11, 90, y, `\\225 List item ${i + 1}`));
  p1.push(text('F1', 9, 290, 40, 'Page 1'));
  const p2 = [
    text('F2', 14, 72, 720, '2. Details'),
    text('F1', 11, 72, 700, 'Second page text with (escaped) parens and a hyphen-'),
    text('F1', 11, 72, 684, 'ated word.'),
    text('F1', 9, 290, 40, 'Page 2'),
  ];
  return buildPdf([p1.join('\n'), p2.join('\n')], {
    title: 'Generated Report',
    outline: [
      { title: 'Introduction', page: 0 },
      { title: 'Details', page: 1 },
    ],
  });
}

function twoColumns() {
  const ops = [text('F2', 16, 72, 740, 'Two Column Layout')];
  for (let col = 0; col < 2; col++) {
    for (let i = 0; i < 30; i++) ops.push(text('F1', 10, 72 + col * 250, 700 - i * 14, `Column ${col + 1} line ${i + 1} lorem ipsum dolor`));
  }
  return buildPdf([ops.join('\n')]);
}

function ruledTable() {
  const ops = ['0.5 w'];
  const x0 = 72,
    y0 = 700,
    w = 120,
    h = 20,
    rows = 5,
    cols = 3;
  for (let r = 0; r <= rows; r++) ops.push(`${x0} ${y0 - r * h} m ${x0 + cols * w} ${y0 - r * h} l S`);
  for (let c = 0; c <= cols; c++) ops.push(`${x0 + c * w} ${y0} m ${x0 + c * w} ${y0 - rows * h} l S`);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++)
      ops.push(text(r === 0 ? 'F2' : 'F1', 10, x0 + c * w + 4, y0 - r * h - 14, r === 0 ? `Head ${c + 1}` : `r${r}c${c + 1} ${(r * 3.5 + c).toFixed(2)}`));
  }
  return buildPdf([ops.join('\n')], { compress: true, title: 'Table' });
}

export function pdfSeeds() {
  return [
    { name: 'gen_text.pdf', bytes: textPages() },
    { name: 'gen_columns.pdf', bytes: twoColumns() },
    { name: 'gen_table.pdf', bytes: ruledTable() },
  ];
}
