// Issue 32, items 3–4, on mail made here: a PDF attached to the third message of a mailbox is
// parsed within that attachment's provenance, and its text comes back in parts that say
// message 3 / attachment [2] / report.pdf / page 4; attachments left out (a format not
// extracted, over the size limit, encrypted) or unreadable show in completeness with why.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectParts } from '../../../src/formats/email/service-attachments.js';
import { MAX_EXTRACT_BYTES } from '../../../src/formats/email/common.js';
import { parseFile } from '../../helpers/parse.js';
import { parserSettings } from '../../helpers/parser-settings.js';
import { sofficePath } from '../../../src/formats/kit/engine-locations.js';
import { sofficeEnvironment } from '../../../src/formats/kit/soffice-env.js';
import { pagesPdf } from '../../helpers/pdfs.js';
import { msgWithUnreadableAttachment } from '../../../bench/fuzz/generators/messages.mjs';

type Part = { type: string; name?: string; body: Buffer | string; encoding?: 'base64' | '7bit' };

/** An RFC 5322 message with a text body and `parts` attached. */
function eml(subject: string, parts: Part[]): string {
  const lines = [`From: a@example.test`, `To: b@example.test`, `Subject: ${subject}`, `Message-ID: <${subject.replace(/\W/g, '')}@example.test>`];
  const boundary = `B-${subject.replace(/\W/g, '')}`; // its own per message: a nested one must not end its container
  lines.push(
    'MIME-Version: 1.0',
    `Content-Type: multipart/mixed; boundary="${boundary}"`,
    '',
    `--${boundary}`,
    'Content-Type: text/plain',
    '',
    `Body of ${subject}`,
  );
  for (const p of parts) {
    const encoding = p.encoding ?? 'base64';
    lines.push(`--${boundary}`, `Content-Type: ${p.type}${p.name ? `; name="${p.name}"` : ''}`);
    if (p.name) lines.push(`Content-Disposition: attachment; filename="${p.name}"`);
    if (encoding === 'base64') lines.push('Content-Transfer-Encoding: base64');
    const body = encoding === 'base64' ? Buffer.from(p.body).toString('base64').replace(/.{76}/g, '$&\r\n') : String(p.body);
    lines.push('', body);
  }
  lines.push(`--${boundary}--`, '');
  return lines.join('\r\n');
}

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dp-mail-prov-'));
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

async function parseText(name: string, text: string | Buffer, format: string) {
  const file = path.join(dir, name);
  await fs.writeFile(file, text);
  const r = await parseFile(file, format);
  if (!r.ok) throw new Error(`${r.code}: ${r.message}`);
  return r.artifact;
}

describe('provenance of attachments parsed by another family', () => {
  it('message 3 / attachment [2] / report.pdf / page 4, and a PDF inside a nested message keeps its top-level message', async () => {
    const inner = eml('inner', [{ type: 'application/pdf', name: 'inner.pdf', body: pagesPdf(2) }]);
    const messages = [
      eml('first', [{ type: 'message/rfc822', body: inner, encoding: '7bit' }]),
      eml('second', []),
      eml('third', [
        { type: 'text/plain', name: 'notes.txt', body: 'plain notes' },
        { type: 'application/pdf', name: 'report.pdf', body: pagesPdf(5) },
      ]),
    ];
    const mbox = messages.map((m, i) => `From sender${i}@example.test Mon Jan  4 10:00:00 2021\n${m.replace(/\r\n/g, '\n')}\n`).join('\n');
    const a = await parseText('three.mbox', mbox, 'mbox');
    const { content, completeness } = a;
    expect(a.documentUnits).toBe(3);
    expect(content.messages.map((m: any) => m.provenance)).toEqual([{ message: 1 }, { message: 2 }, { message: 3 }]);

    const report = content.messages[2].attachments[1];
    expect(report).toMatchObject({
      fileName: 'report.pdf',
      extraction: 'parsed',
      format: 'pdf',
      provenance: { message: 3, attachment: [2], file: 'report.pdf' },
    });
    expect(report.parts).toHaveLength(5);
    report.parts.forEach((p: any, i: number) => {
      expect(p.provenance).toMatchObject({ message: 3, attachment: [2], file: 'report.pdf', page: i + 1 });
      expect(p.text).toContain(`Page ${i + 1} of a generated document`);
    });
    expect(report.parts[3].provenance.page).toBe(4);
    expect(report.text).toBe(report.parts.map((p: any) => p.text).join('\n'));
    expect(content.messages[2].attachments[0]).toMatchObject({
      extraction: 'text',
      text: 'plain notes',
      provenance: { message: 3, attachment: [1], file: 'notes.txt' },
    });

    const nested = content.messages[0].attachments[0];
    expect(nested.provenance).toEqual({ message: 1, attachment: [1] });
    expect(nested.message.provenance).toEqual({ message: 1, attachment: [1] });
    const innerPdf = nested.message.attachments[0];
    expect(innerPdf.provenance).toEqual({ message: 1, attachment: [1, 1], file: 'inner.pdf' });
    expect(innerPdf.parts.map((p: any) => p.provenance)).toMatchObject([
      { message: 1, attachment: [1, 1], file: 'inner.pdf', page: 1 },
      { message: 1, attachment: [1, 1], file: 'inner.pdf', page: 2 },
    ]);

    expect(completeness.complete).toBe(true);
    expect(completeness.messages).toMatchObject({ found: 3, emitted: 3, failed: 0, skipped: 0 });
    expect(completeness.attachments).toMatchObject({ found: 4, emitted: 4, empty: 0, failed: 0, skipped: 0, gaps: [] });
  });

  it('parts use the provenance the embedded family writes, joined per place, starting from the attachment', () => {
    const within = { message: 3, attachment: [2], file: 'report.pdf' };
    const parts = collectParts(
      {
        pages: [
          {
            number: 4,
            blocks: [
              { text: 'Heading', provenance: { ...within, page: 4, box: [10, 10, 50, 20] }, lines: [{ text: 'Heading' }] },
              { text: 'Body', provenance: { ...within, page: 4, box: [5, 30, 40, 60] } },
            ],
          },
          { number: 5, blocks: [{ text: 'Next', provenance: { ...within, page: 5, box: [0, 0, 1, 1] } }] },
        ],
      },
      within,
    );
    expect(parts).toEqual([
      { text: 'Heading\nBody', provenance: { ...within, page: 4, box: [5, 10, 50, 60] } },
      { text: 'Next', provenance: { ...within, page: 5, box: [0, 0, 1, 1] } },
    ]);
    // A family that writes no provenance: the sheet or slide holding the text.
    expect(collectParts({ sheets: [{ name: 'Q1', rows: [{ cells: [{ value: 42 }, { value: 'x' }] }] }] }, within)).toEqual([
      { text: '42\nx', provenance: { ...within, sheet: 'Q1' } },
    ]);
    expect(collectParts({ slides: [{ number: 2, textBlocks: [{ text: 'Title' }] }] }, within)).toEqual([
      { text: 'Title', provenance: { ...within, slide: 2 } },
    ]);
  });
});

describe('attachments and messages left out, with why', () => {
  it('a format not extracted and one over the size limit are skipped; a damaged PDF and an unreadable nested message failed', async () => {
    const big = `${'a'.repeat(75)}\r\n`.repeat(Math.ceil((MAX_EXTRACT_BYTES + 1) / 77));
    const text = eml('gaps', [
      { type: 'image/png', name: 'chart.png', body: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]) },
      { type: 'text/plain', name: 'huge.txt', body: big, encoding: '7bit' },
      { type: 'application/pdf', name: 'broken.pdf', body: '%PDF-1.4\nthis is not the rest of a PDF\n' },
      { type: 'message/rfc822', body: 'no header here, only a line of text\r\n', encoding: '7bit' },
    ]);
    const { content, completeness } = await parseText('gaps.eml', text, 'eml');
    const atts = content.messages[0].attachments;
    expect(atts.map((x: any) => x.missed)).toEqual(['skipped', 'skipped', 'failed', 'failed']);
    expect(completeness.complete).toBe(false);
    expect(completeness.messages).toMatchObject({ found: 1, emitted: 1, failed: 0, skipped: 0 });
    expect(completeness.attachments).toMatchObject({ found: 4, emitted: 0, failed: 2, skipped: 2 });
    const gaps = completeness.attachments.gaps;
    expect(gaps[0]).toEqual({
      outcome: 'skipped',
      reason: 'binary attachment: content not extracted',
      provenance: { message: 1, attachment: [1], file: 'chart.png' },
    });
    expect(gaps[1]).toEqual({
      outcome: 'skipped',
      reason: `text not extracted: larger than ${MAX_EXTRACT_BYTES} bytes`,
      provenance: { message: 1, attachment: [2], file: 'huge.txt' },
    });
    expect(gaps[2].outcome).toBe('failed');
    expect(gaps[2].reason).toMatch(/^pdf: could not be parsed \(.+\)$/);
    expect(gaps[2].provenance).toEqual({ message: 1, attachment: [3], file: 'broken.pdf' });
    expect(gaps[3]).toEqual({
      outcome: 'failed',
      reason: 'nested message unreadable: no header fields: not an RFC 5322 message',
      provenance: { message: 1, attachment: [4] },
    });
  });

  it('an MBOX entry that is not a message is failed, its raw text kept; the messages around it are emitted', async () => {
    const mbox = [
      'From a@example.test Mon Jan  4 10:00:00 2021',
      'From: a@example.test',
      'Subject: one',
      '',
      'first',
      '',
      'From b@example.test Mon Jan  4 11:00:00 2021',
      '',
      'no headers at all',
      '',
      'From c@example.test Mon Jan  4 12:00:00 2021',
      'From: c@example.test',
      'Subject: three',
      '',
      'third',
      '',
    ].join('\n');
    const { content, completeness } = await parseText('one-bad.mbox', mbox, 'mbox');
    expect(content.messages).toHaveLength(3);
    expect(content.messages[1]).toMatchObject({ missed: 'failed', provenance: { message: 2 } });
    expect(content.messages[1].text).toContain('no headers at all');
    expect(completeness.messages).toEqual({
      found: 3,
      emitted: 2,
      empty: 0,
      failed: 1,
      skipped: 0,
      gaps: [{ outcome: 'failed', reason: 'not parsed as MIME: no header fields: not an RFC 5322 message', provenance: { message: 2 } }],
    });
  });

  it('an MSG attachment whose data streams are gone (edited sectors) is failed', async () => {
    const { content, completeness } = await parseText('edited-sectors.msg', msgWithUnreadableAttachment(), 'msg');
    expect(content.messages[0].attachments[0]).toMatchObject({ missed: 'failed', provenance: { message: 1, attachment: [1] } });
    expect(completeness.attachments).toEqual({
      found: 1,
      emitted: 0,
      empty: 0,
      failed: 1,
      skipped: 0,
      gaps: [{ outcome: 'failed', reason: 'attachment content not available', provenance: { message: 1, attachment: [1] } }],
    });
  });

  const soffice = sofficePath(parserSettings().engines);
  it.skipIf(!soffice)(
    'a password-protected PDF (made by LibreOffice) is skipped as encrypted',
    async () => {
      const work = path.join(dir, 'lo');
      await fs.mkdir(work, { recursive: true });
      await fs.writeFile(path.join(work, 'secret.txt'), 'A secret page\n');
      const filter = 'pdf:writer_pdf_Export:{"EncryptFile":{"type":"boolean","value":"true"},"DocumentOpenPassword":{"type":"string","value":"s3cret"}}';
      execFileSync(
        soffice!,
        [`-env:UserInstallation=file://${work}/profile`, '--headless', '--convert-to', filter, '--outdir', work, path.join(work, 'secret.txt')],
        {
          env: sofficeEnvironment(),
          stdio: 'ignore',
          timeout: 120_000,
        },
      );
      const pdf = await fs.readFile(path.join(work, 'secret.pdf'));
      const { content, completeness } = await parseText('secret.eml', eml('secret', [{ type: 'application/pdf', name: 'secret.pdf', body: pdf }]), 'eml');
      expect(content.messages[0].attachments[0]).toMatchObject({ extraction: 'none', missed: 'skipped' });
      expect(completeness.attachments).toMatchObject({ found: 1, emitted: 0, failed: 0, skipped: 1 });
      expect(completeness.attachments.gaps[0]).toEqual({
        outcome: 'skipped',
        reason: 'pdf: could not be parsed (PDF is encrypted and needs a password to open)',
        provenance: { message: 1, attachment: [1], file: 'secret.pdf' },
      });
    },
    180_000,
  );
});
