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

/**
 * `pages` scanned-looking pages: each is one full-page grayscale image (the same image object,
 * so the file stays small) of dark strokes on a light ground, with no text layer, so Ocr mode
 * renders and recognises every page (seconds of work per page: a long job for cancel tests).
 */
export function scannedPdf(pages: number, width = 850, height = 1100): Buffer {
  let seed = 42;
  const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const pixels = Buffer.alloc(width * height, 235);
  // Word-like dark blocks in lines, so Tesseract finds text regions on every page.
  for (let y = 60; y + 14 < height - 60; y += 26) {
    for (let x = 60; x < width - 80;) {
      const w = 12 + Math.floor(random() * 50);
      for (let dy = 0; dy < 14; dy++) for (let dx = 0; dx < w && x + dx < width - 60; dx++) if (random() < 0.7) pixels[(y + dy) * width + x + dx] = 20;
      x += w + 10;
    }
  }
  const head: string[] = [];
  head[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  head[3] = `<< /Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace /DeviceGray /BitsPerComponent 8 /Length ${pixels.length} >>`;
  const draw = 'q 612 0 0 792 0 0 cm /Im1 Do Q';
  head[4] = `<< /Length ${draw.length} >>\nstream\n${draw}\nendstream`;
  const kids: string[] = [];
  for (let i = 0; i < pages; i++) {
    const n = 5 + i;
    head[n] = '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /XObject << /Im1 3 0 R >> >> >>';
    kids.push(`${n} 0 R`);
  }
  head[2] = `<< /Type /Pages /Kids [${kids.join(' ')}] /Count ${pages} >>`;
  const parts: Buffer[] = [];
  const offsets: number[] = [];
  let length = 0;
  const add = (b: Buffer) => {
    parts.push(b);
    length += b.length;
  };
  add(Buffer.from('%PDF-1.4\n', 'latin1'));
  for (let n = 1; n < head.length; n++) {
    offsets[n] = length;
    if (n === 3) {
      add(Buffer.from(`3 0 obj\n${head[3]}\nstream\n`, 'latin1'));
      add(pixels);
      add(Buffer.from('\nendstream\nendobj\n', 'latin1'));
    } else add(Buffer.from(`${n} 0 obj\n${head[n]}\nendobj\n`, 'latin1'));
  }
  const xref = length;
  let tail = `xref\n0 ${head.length}\n0000000000 65535 f \n`;
  for (let n = 1; n < head.length; n++) tail += `${String(offsets[n]).padStart(10, '0')} 00000 n \n`;
  tail += `trailer\n<< /Size ${head.length} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  add(Buffer.from(tail, 'latin1'));
  return Buffer.concat(parts);
}
