// PDFs written byte by byte at test time: a page tree of distinct text pages. (Page trees that
// lie — one page named many times — are bench/fuzz/generators/pdf-lies.mjs.)

/** `pages` distinct text pages. */
export function pagesPdf(pages: number): Buffer {
  const objects: string[] = [];
  const pageRefs: string[] = [];
  const distinct = pages;
  // 1 catalog, 2 pages, 3 font, then (page, contents) pairs.
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[3] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';
  for (let i = 0; i < distinct; i++) {
    const page = 4 + i * 2;
    const text = `BT /F1 18 Tf 72 720 Td (Page ${i + 1} of a generated document) Tj ET`;
    objects[page] = `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${page + 1} 0 R /Resources << /Font << /F1 3 0 R >> >> >>`;
    objects[page + 1] = `<< /Length ${text.length} >>\nstream\n${text}\nendstream`;
  }
  for (let i = 0; i < pages; i++) pageRefs.push(`${4 + i * 2} 0 R`);
  objects[2] = `<< /Type /Pages /Kids [${pageRefs.join(' ')}] /Count ${pages} >>`;

  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  for (let n = 1; n < objects.length; n++) {
    offsets[n] = Buffer.byteLength(body, 'latin1');
    body += `${n} 0 obj\n${objects[n]}\nendobj\n`;
  }
  const xref = Buffer.byteLength(body, 'latin1');
  body += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let n = 1; n < objects.length; n++) body += `${String(offsets[n]).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}
