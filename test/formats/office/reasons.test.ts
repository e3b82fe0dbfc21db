// DOCX warnings are sentences (issue 27, item 7): a part the reader cannot get through is
// named and said to be damaged, never explained by the JavaScript error it hit, and names
// taken from the package are quoted printably.
import { describe, expect, it } from 'vitest';
import { makeZip } from '../../helpers/zip.js';
import { expectSentence, parseUpload } from '../reasons.js';

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const CONTENT_TYPES =
  '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>';
const ROOT_RELS = `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="word/document.xml"/></Relationships>`;

/** A DOCX whose main part holds `body` (one paragraph by default) and whose relationships are `rels` (extra parts: `parts`). */
function docx(rels: string, parts: Record<string, string>, body = '<w:p><w:r><w:t>Quarterly memo</w:t></w:r></w:p>'): Buffer {
  const document = `<?xml version="1.0" encoding="UTF-8"?><w:document ${W}><w:body>${body}</w:body></w:document>`;
  const documentRels = `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rels}</Relationships>`;
  return makeZip(
    Object.entries({
      '[Content_Types].xml': CONTENT_TYPES,
      '_rels/.rels': ROOT_RELS,
      'word/document.xml': document,
      'word/_rels/document.xml.rels': documentRels,
      ...parts,
    }).map(([name, text]) => ({ name, data: Buffer.from(text), deflate: true })),
  );
}

describe('DOCX warnings', () => {
  it('footnotes holding a symbol with an impossible code point: the part is named and said to be damaged', async () => {
    // w:sym w:char="-1" made String.fromCodePoint throw: "footnotes unreadable: Invalid code point -1".
    const footnotes = `<?xml version="1.0" encoding="UTF-8"?><w:footnotes ${W}><w:footnote w:id="1"><w:p><w:r><w:sym w:font="Symbol" w:char="-1"/></w:r></w:p></w:footnote></w:footnotes>`;
    const bytes = docx(`<Relationship Id="rId2" Type="${REL}/footnotes" Target="footnotes.xml"/>`, { 'word/footnotes.xml': footnotes });
    const { result, artifact } = await parseUpload(bytes, 'bad-symbol.docx', 'docx');
    expect(result.ok).toBe(true);
    expect(artifact!.content.blocks.map((b: { text: string }) => b.text)).toEqual(['Quarterly memo']);
    expect(artifact!.warnings).toContain('footnotes unreadable: the footnotes part is damaged');
    for (const w of artifact!.warnings) expectSentence(w);
  });

  it('a styles part the XML parser refuses is explained by our own sentence, naming the part', async () => {
    const styles = `<w:styles ${W}>${'<w:style>'.repeat(200)}${'</w:style>'.repeat(200)}</w:styles>`;
    const bytes = docx(`<Relationship Id="rId2" Type="${REL}/styles" Target="styles.xml"/>`, { 'word/styles.xml': styles });
    const { result, artifact } = await parseUpload(bytes, 'deep-styles.docx', 'docx');
    expect(result.ok).toBe(true);
    expect(artifact!.warnings).toContain(
      'styles unreadable, heading levels may be missing: malformed XML in "word/styles.xml": the part is damaged or truncated',
    );
  });

  it('a sub-document link with bidi and control characters is quoted printably', async () => {
    const target = 'file:///C:/evil\u202Egnp.exe\t\u0007bel';
    const bytes = docx(`<Relationship Id="rId2" Type="${REL}/subDocument" Target="${target}" TargetMode="External"/>`, {});
    const { result, artifact } = await parseUpload(bytes, 'subdoc.docx', 'docx');
    expect(result.ok).toBe(true);
    expect(artifact!.warnings).toContain('sub-document link not followed: "file:///C:/evil?gnp.exe?bel"');
    for (const w of artifact!.warnings) expectSentence(w);
  });

  it('a list level far past Word’s 0–8 gets no label (counting up to it took seconds and gigabytes)', async () => {
    const level = 30_000_000;
    const numbering = `<w:numbering ${W}><w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="${level}"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/></w:lvl></w:abstractNum><w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num></w:numbering>`;
    const body = `<w:p><w:pPr><w:numPr><w:ilvl w:val="${level}"/><w:numId w:val="1"/></w:numPr></w:pPr><w:r><w:t>item</w:t></w:r></w:p>`;
    const bytes = docx(`<Relationship Id="rId2" Type="${REL}/numbering" Target="numbering.xml"/>`, { 'word/numbering.xml': numbering }, body);
    const { result, artifact } = await parseUpload(bytes, 'deep-list.docx', 'docx');
    expect(result.ok).toBe(true);
    expect(artifact!.content.blocks).toEqual([expect.objectContaining({ type: 'listItem', text: 'item', level, label: null })]);
  });
});
