// The archive guard's reasons are sentences (issue 27, item 7): a member name holding control
// bytes is shown as a short printable excerpt, and a damaged deflate stream is described in our
// words while zlib's own message goes to the job's internal cause (the log).
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { makeZip, type ZipMember } from '../helpers/zip.js';
import { expectSentence, parseUpload } from './reasons.js';

const CONTENT_TYPES =
  '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>';
const ROOT_RELS =
  '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>';
const DOCUMENT =
  '<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>Quarterly memo</w:t></w:r></w:p></w:body></w:document>';

const docx = (extra: ZipMember) =>
  makeZip([
    { name: '[Content_Types].xml', data: Buffer.from(CONTENT_TYPES), deflate: true },
    { name: '_rels/.rels', data: Buffer.from(ROOT_RELS), deflate: true },
    { name: 'word/document.xml', data: Buffer.from(DOCUMENT), deflate: true },
    extra,
  ]);

/**
 * A raw deflate stream whose first symbol copies 3 bytes from 1 byte back, before any byte
 * was written: zlib says "invalid distance too far back". One fixed-Huffman block: BFINAL,
 * BTYPE 01, length code 257, distance code 0, end of block.
 */
function deflateReachingBack(): Buffer {
  const bits: number[] = [];
  const lsbFirst = (value: number, n: number) => {
    for (let i = 0; i < n; i++) bits.push((value >> i) & 1);
  };
  const huffman = (code: number, n: number) => {
    for (let i = n - 1; i >= 0; i--) bits.push((code >> i) & 1);
  };
  lsbFirst(1, 1);
  lsbFirst(1, 2);
  huffman(0b0000001, 7);
  huffman(0b00000, 5);
  huffman(0b0000000, 7);
  const out = Buffer.alloc(Math.ceil(bits.length / 8));
  bits.forEach((b, i) => (out[i >> 3] |= b << (i & 7)));
  return out;
}

describe('archive guard reasons', () => {
  it('a member name with NUL and form-feed bytes is quoted printably, the reason still says why', async () => {
    const name = `doc\u0000\fml/${'\u0001PK\u0003\u0004'.repeat(80)}.xml`;
    const { result } = await parseUpload(docx({ name, data: Buffer.from('<x/>') }), 'nul-name.docx', 'docx');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.message).toBe(
      // Each run of control bytes is one '?'; 60 characters are shown.
      `The archive holds a member with an unsafe path ("doc?ml/${'?PK'.repeat(17)}?P…" contains a NUL character); refused.`,
    );
    expectSentence(result.message);
  });

  it('a member whose deflate stream reaches back before its start is "damaged", in our words; zlib’s go to the log', async () => {
    const member = { name: 'word/styles.xml', data: Buffer.from('abc'), deflated: deflateReachingBack() };
    const { result } = await parseUpload(docx(member), 'bad-deflate.docx', 'docx');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.message).toBe('The archive\'s member "word/styles.xml" is damaged: its compressed data is damaged.');
    expectSentence(result.message);
    expect(result.internal).toMatch(/invalid distance too far back/);
  });

  it('a member whose deflate stream stops short says the archive is truncated', async () => {
    const text = Buffer.from('Quarterly memo, quarterly numbers. '.repeat(400));
    const deflated = zlib.deflateRawSync(text);
    const cut = deflated.subarray(0, deflated.length >> 1);
    const { result } = await parseUpload(docx({ name: 'word/styles.xml', data: text, deflated: cut }), 'short-deflate.docx', 'docx');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.message).toBe('The archive\'s member "word/styles.xml" is damaged: its compressed data ends early (the archive is truncated).');
    expect(result.internal).toMatch(/unexpected end of file/);
  });

  it('a file that is not a ZIP is described without yauzl’s words', async () => {
    const { result } = await parseUpload(Buffer.concat([Buffer.from('PK\u0003\u0004'), Buffer.alloc(200, 0x41)]), 'not-zip.docx', 'docx');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.message).toBe('The file is not a readable ZIP archive (its end-of-archive record is missing); it is truncated or not this format.');
    expectSentence(result.message);
    expect(result.internal).toMatch(/End of central directory record signature not found/);
  });
});
