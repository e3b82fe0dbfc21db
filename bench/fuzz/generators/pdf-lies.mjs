// PDFs whose page tree lies about how many pages they hold (issue 27): Kids that name one
// page object 30,000 times (a 180 KB file that PDFium counts as 30,000 pages), a /Count far
// above the tree's entries, a Pages node named three times, a repeat among real pages. Each
// is billed, extracted and written once per page object; the tree's lies go to the warnings.

/** A PDF of numbered objects (`objects[n]` is object n's body, `{ dict, data }` a stream); a correct xref. */
export function pdfFromObjects(objects) {
  const parts = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let size = parts[0].length;
  const offsets = [];
  for (let n = 1; n < objects.length; n++) {
    const body = objects[n];
    offsets[n] = size;
    const chunk =
      typeof body === 'string'
        ? Buffer.from(`${n} 0 obj\n${body}\nendobj\n`, 'latin1')
        : Buffer.concat([Buffer.from(`${n} 0 obj\n${body.dict}\nstream\n`, 'latin1'), body.data, Buffer.from('\nendstream\nendobj\n', 'latin1')]);
    parts.push(chunk);
    size += chunk.length;
  }
  const xref = [`xref\n0 ${objects.length}\n0000000000 65535 f \n`, ...offsets.slice(1).map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)].join('');
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${size}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(parts);
}

/**
 * Object 1 the catalog, 2 the root Pages node (written by `tree(pageObjectNumbers)`), 3 the
 * font, then one page object (and its content stream) per text in `texts`.
 */
function pagesPdf(texts, tree) {
  const objects = [null, '<< /Type /Catalog /Pages 2 0 R >>', null, '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'];
  const pages = [];
  for (const text of texts) {
    const content = Buffer.from(`BT /F1 18 Tf 72 720 Td (${text}) Tj ET`, 'latin1');
    pages.push(objects.length);
    objects.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${objects.length + 1} 0 R /Resources << /Font << /F1 3 0 R >> >> >>`);
    objects.push({ dict: `<< /Length ${content.length} >>`, data: content });
  }
  objects[2] = tree(pages, objects);
  return pdfFromObjects(objects);
}

const refs = (numbers) => numbers.map((n) => `${n} 0 R`).join(' ');

/** One page object named `times` times by the root's Kids, /Count `times` (30,000: about 180 KB). */
export function repeatedPagePdf(times = 30_000) {
  return pagesPdf(['The only page'], ([page]) => `<< /Type /Pages /Kids [${refs(Array(times).fill(page))}] /Count ${times} >>`);
}

/** Pages one, two, one again, three: a real document with one page named twice. */
export function repeatAmongPagesPdf() {
  return pagesPdf(['Page one', 'Page two', 'Page three'], ([a, b, c]) => `<< /Type /Pages /Kids [${refs([a, b, a, c])}] /Count 4 >>`);
}

/** One page, and a /Count of `count` (PDFium believes a /Count up to about a million). */
export function countAbovePagesPdf(count = 30_000) {
  return pagesPdf(['The only page'], ([page]) => `<< /Type /Pages /Kids [${refs([page])}] /Count ${count} >>`);
}

/** `entries` Kids naming one page, and a /Count of a million: past the tree's end every lookup walks it all. */
export function countAboveLongTreePdf(entries = 100_000) {
  return pagesPdf(['The only page'], ([page]) => `<< /Type /Pages /Kids [${refs(Array(entries).fill(page))}] /Count 1000000 >>`);
}

/** A Pages node of two pages named three times by the root: six entries, two pages. */
export function repeatedSubtreePdf() {
  return pagesPdf(['Left page', 'Right page'], (pages, objects) => {
    const node = objects.length;
    objects.push(`<< /Type /Pages /Parent 2 0 R /Kids [${refs(pages)}] /Count 2 >>`);
    return `<< /Type /Pages /Kids [${refs([node, node, node])}] /Count 6 >>`;
  });
}

/** The fuzzer's seeds (name, bytes). */
export function pdfLieSeeds() {
  return [
    { name: 'lie_repeated_page.pdf', bytes: repeatedPagePdf() },
    { name: 'lie_repeat_among_pages.pdf', bytes: repeatAmongPagesPdf() },
    { name: 'lie_count_above_pages.pdf', bytes: countAbovePagesPdf() },
    { name: 'lie_count_above_long_tree.pdf', bytes: countAboveLongTreePdf() },
    { name: 'lie_repeated_subtree.pdf', bytes: repeatedSubtreePdf() },
  ];
}
