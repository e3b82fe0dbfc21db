// Attachments in formats the service parses (PDF, Office) are read by their family's parser
// inside the e-mail job: their text is on the attachment, and they are not billed again.
import { describe, expect, it } from 'vitest';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseFile, corpusPath } from '../../helpers/parse.js';
import { collectText } from '../../../src/formats/email/service-attachments.js';

describe('service-format attachments', () => {
  it('a PDF and a DOCX attached to an EML are parsed: their text is on the attachments, units stay one', async () => {
    const pdf = await fs.readFile(corpusPath('pdf', 'camelot__column_span_1.pdf'));
    const docx = await fs.readFile(corpusPath('office', 'tika__testWORD.docx'));
    const b64 = (b: Buffer) => b.toString('base64').replace(/.{76}/g, '$&\r\n');
    const eml = [
      'From: a@example.com',
      'To: b@example.com',
      'Subject: report',
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="B"',
      '',
      '--B',
      'Content-Type: text/plain',
      '',
      'see attached',
      '--B',
      'Content-Type: application/pdf; name="table.pdf"',
      'Content-Disposition: attachment; filename="table.pdf"',
      'Content-Transfer-Encoding: base64',
      '',
      b64(pdf),
      '--B',
      'Content-Type: application/vnd.openxmlformats-officedocument.wordprocessingml.document; name="memo.docx"',
      'Content-Disposition: attachment; filename="memo.docx"',
      'Content-Transfer-Encoding: base64',
      '',
      b64(docx),
      '--B--',
      '',
    ].join('\r\n');
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dp-eml-'));
    try {
      const file = path.join(dir, 'report.eml');
      await fs.writeFile(file, eml);
      const r = await parseFile(file, 'eml');
      expect(r.ok).toBe(true);
      if (!r.ok) return;
      expect(r.artifact.documentUnits).toBe(1);
      const atts = r.artifact.content.messages[0].attachments as any[];
      const parsedPdf = atts.find((a) => a.fileName === 'table.pdf');
      expect(parsedPdf).toMatchObject({ extraction: 'parsed', format: 'pdf' });
      expect(parsedPdf.text.trim().length).toBeGreaterThan(50);
      const parsedDocx = atts.find((a) => a.fileName === 'memo.docx');
      expect(parsedDocx).toMatchObject({ extraction: 'parsed', format: 'docx' });
      expect(parsedDocx.text.trim().length).toBeGreaterThan(10);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('a broken PDF attachment keeps a note saying why it could not be parsed', async () => {
    const r = await parseFile(corpusPath('email', 'mikelmail__attachment_pdf.eml'), 'eml');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const att = r.artifact.content.messages[0].attachments[0];
    expect(att.extraction).toBe('none');
    expect(att.note).toMatch(/pdf: could not be parsed/);
  });

  it('collects block text once (not again from lines or words) and cell values', () => {
    const text = collectText({
      pages: [
        {
          blocks: [
            { text: 'Heading', lines: [{ text: 'Heading' }] },
            { text: 'Body text', words: [{ text: 'Body' }] },
          ],
        },
      ],
      sheets: [{ rows: [{ cells: [{ value: 42 }, { value: 'x' }] }] }],
    });
    expect(text.split('\n')).toEqual(['Heading', 'Body text', '42', 'x']);
  });
});
