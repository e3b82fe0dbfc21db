// What the email readers extract: headers, dates, bodies, legacy charsets, attachments and
// nested messages, folder paths, MBOX splitting rules, and clear failures on bad input.
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { Value } from '@sinclair/typebox/value';
import { isFromLine, parseEml, parseMbox, parseMsg, parsePst, splitMbox } from '../../../src/formats/email/index.js';
import { EmailContent } from '../../../src/formats/email/schema.js';
import type { FormatParser } from '../../../src/formats/kit/types.js';
import { corpusPath, parseFileWith } from '../../helpers/parse.js';

const PARSERS: Record<string, FormatParser> = { eml: parseEml, mbox: parseMbox, msg: parseMsg, pst: parsePst };

async function run(file: string): Promise<Record<string, any>> {
  const fmt = file.slice(file.lastIndexOf('.') + 1);
  const r = await parseFileWith(PARSERS[fmt], corpusPath('email', file), fmt);
  if (!r.ok) throw new Error(`${r.code}: ${r.message}`);
  expect(Value.Check(EmailContent, r.artifact.content)).toBe(true);
  return r.artifact;
}

async function runBytes(bytes: string | Buffer, fmt: string, name = `x.${fmt}`): Promise<Awaited<ReturnType<typeof parseFileWith>>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dp-mail-'));
  const f = path.join(dir, name);
  fs.writeFileSync(f, bytes);
  try {
    return await parseFileWith(PARSERS[fmt], f, fmt, {}, name);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const first = async (file: string): Promise<any> => (await run(file)).content.messages[0];

describe('EML headers and bodies', () => {
  it('reads message id, addresses, ISO date, in-reply-to and references', async () => {
    const m = await first('mikelmail__example07.eml');
    expect(m.subject).toBe('Re: Saying Hello');
    expect(m.date).toBe('1997-11-21T17:00:00.000Z');
    expect(m.messageId).toMatch(/^<.+@.+>$/);
    expect(m.inReplyTo).toMatch(/^<.+>$/);
    expect(m.references.length).toBeGreaterThanOrEqual(1);
    expect(m.from[0].address).toMatch(/@/);
    expect(m.headers.find((h: any) => h.name.toLowerCase() === 'subject').value).toBe('Re: Saying Hello');
  });
  it('a missing or empty Date header gives date null, never "now"', async () => {
    expect((await first('mikelmail__bad_date_header.eml')).date).toBeNull();
    expect((await first('mikelmail__utf8_headers.eml')).date).toBeNull();
  });
  it('odd zones are applied (-0459)', async () => {
    const m = await first('mikelmail__content_transfer_encoding_with_8bits.eml');
    expect(m.date).toBe('2001-12-04T22:10:25.000Z');
  });
  it('HTML bodies come with their text', async () => {
    const m = await first('tika__testLotusEml.eml');
    expect(m.text).toBeNull(); // HTML only: no text part is invented
    expect(m.htmlText).toBe('Message body');
    expect(m.html).toMatch(/<[a-z]/i);
    expect(m.htmlText.length).toBeGreaterThan(0);
    expect(m.htmlText).not.toMatch(/<\/?[a-z]+[^>]*>/i);
  });
  it('RFC 6532 raw UTF-8 headers', async () => {
    const m = await first('mikelmail__utf8_headers.eml');
    expect(m.subject).toBe('Säying Hello');
    expect(m.from[0].name).toBe('Jöhn Doe');
  });
});

describe('legacy charsets', () => {
  it('ISO-2022-JP, Shift_JIS, KS C 5601 and UTF-8 base64 bodies', async () => {
    const iso = await first('mikelmail__japanese_iso_2022.eml');
    expect(iso.subject).toBe('まみむめも');
    expect(iso.text).toContain('すみません');
    expect((await first('mikelmail__japanese_shift_jis.eml')).text).toContain('あいうえお');
    expect((await first('mikelmail__ks_c_5601-1987.eml')).text).toContain('스티해');
    expect((await first('mikelmail__japanese.eml')).subject).toBe('まみむめも');
  });
  it('non-Unicode MSG strings are decoded with the message code page (CP932, Big5)', async () => {
    const jp = await first('msgreader__nonUnicodeCP932.msg');
    expect(jp.subject).toBe('日本語 Non Unicode タイトル');
    expect(jp.text).toContain('日本語 Non Unicode 本文');
    const zh = await run('tika__testMSG_chinese.msg');
    expect(zh.content.messages[0].subject).toBe('Alfresco MSG format testing ( MSG 格式測試 )');
    expect(zh.content.messages[0].text).toContain('中文測試');
    expect(zh.metadata.ansiCodepage).toBe('cp950');
  });
});

describe('Windows code pages and attachment kinds (synthetic)', () => {
  it('windows-1251 and windows-1252 bodies and encoded-word subjects; CSV and HTML attachments extracted', async () => {
    const cyr = Buffer.from('Привет, мир', 'utf8');
    const iconv = (await import('iconv-lite')).default;
    const body1251 = iconv.encode('Привет, мир', 'windows-1251');
    const subject = `=?windows-1252?Q?caf=E9_cr=E8me?=`;
    const csv = Buffer.from('a,b\n1,2\n').toString('base64');
    const html = Buffer.from('<html><body><h1>Title</h1><p>Para &amp; more</p></body></html>').toString('base64');
    const msg = Buffer.concat([
      Buffer.from(
        `From: =?windows-1251?B?${iconv.encode('Иван', 'windows-1251').toString('base64')}?= <ivan@example.ru>\r\nTo: a@b.c\r\nSubject: ${subject}\r\nDate: Tue, 1 Jun 2021 10:00:00 +0300\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="XX"\r\n\r\n--XX\r\nContent-Type: text/plain; charset=windows-1251\r\nContent-Transfer-Encoding: 8bit\r\n\r\n`,
        'latin1',
      ),
      body1251,
      Buffer.from(
        `\r\n--XX\r\nContent-Type: text/csv; name="t.csv"\r\nContent-Disposition: attachment; filename="t.csv"\r\nContent-Transfer-Encoding: base64\r\n\r\n${csv}\r\n--XX\r\nContent-Type: text/html; name="p.html"\r\nContent-Disposition: attachment; filename="p.html"\r\nContent-Transfer-Encoding: base64\r\n\r\n${html}\r\n--XX--\r\n`,
        'latin1',
      ),
    ]);
    const r = await runBytes(msg, 'eml');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(Value.Check(EmailContent, r.artifact.content)).toBe(true);
    const m = r.artifact.content.messages[0];
    expect(m.subject).toBe('café crème');
    expect(m.from[0]).toEqual({ name: 'Иван', address: 'ivan@example.ru' });
    expect(m.text.trim()).toBe(cyr.toString('utf8'));
    expect(m.date).toBe('2021-06-01T07:00:00.000Z');
    const [c, h] = m.attachments;
    expect(c.extraction).toBe('csv');
    expect(c.text).toBe('a,b\n1,2\n');
    expect(h.extraction).toBe('html');
    expect(h.text).toContain('Para & more');
    expect(h.text).not.toContain('<p>');
  });
});

describe('attachments', () => {
  it('file name, content type, size and SHA-256 of the decoded bytes', async () => {
    const m = await first('tika__testEmailWithPNGAtt.eml');
    const a = m.attachments[0];
    expect(a.contentType).toBe('image/png');
    expect(a.size).toBeGreaterThan(1000);
    expect(a.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(a.extraction).toBe('none');
    // The PNG signature survives decoding: hash a re-decode of the base64 part independently.
    const raw = fs.readFileSync(corpusPath('email', 'tika__testEmailWithPNGAtt.eml'), 'latin1');
    const b64 = /Content-Transfer-Encoding: base64\r?\n(?:[^\r\n]+\r?\n)*?\r?\n([A-Za-z0-9+/=\r\n]+)/i.exec(raw.slice(raw.search(/image\/png/i)))![1];
    const bytes = Buffer.from(b64.replace(/\s+/g, ''), 'base64');
    expect(a.size).toBe(bytes.length);
    expect(a.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
  });
  it('text attachments are extracted (non-ASCII names, Japanese text); others get a note', async () => {
    const jp = await first('mikelmail__japanese_attachment.eml');
    expect(jp.attachments[0].fileName).toBe('てすと.txt');
    expect(jp.attachments[0].extraction).toBe('text');
    expect(jp.attachments[0].text).toContain('これわてすと');
    expect((await first('mikelmail__attachment_nonascii_filename.eml')).attachments[0].text).toContain('Hi there');
    const pdf = await first('mikelmail__attachment_pdf.eml');
    expect(pdf.attachments[0].extraction).toBe('none');
    expect(pdf.attachments[0].note).toMatch(/PDF/);
    expect(pdf.subject).toContain('🎉');
  });
  it('MSG attachments: names, types from names when absent, hashes, inline flags', async () => {
    const m = await first('msgreader__attachmentFiles.msg');
    expect(m.attachments).toHaveLength(3);
    for (const a of m.attachments) {
      expect(a.fileName).toBeTruthy();
      expect(a.sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(a.size).toBeGreaterThan(0);
    }
    const big = await first('tika__test-outlook2003.msg');
    expect(big.attachments.every((a: any) => /^image\//.test(a.contentType ?? ''))).toBe(true);
  });
});

describe('nested messages', () => {
  it('message/rfc822 parts are parsed recursively, with their own attachments', async () => {
    const m = await first('mikelmail__attachment_message_rfc822.eml');
    const nested = m.attachments.find((a: any) => a.extraction === 'message');
    expect(nested.message.subject).toBeTruthy();
    expect(nested.message.attachments.map((a: any) => a.fileName)).toContain('broken.pdf');
    expect(m.attachmentCount).toBe(1);
    expect(m.totalAttachmentCount).toBe(2);
    expect(m.nestedMessageCount).toBe(1);
  });
  it('embedded MSG two levels deep', async () => {
    const m = await first('msgreader__msgInMsgInMsg.msg');
    const l1 = m.attachments.find((a: any) => a.extraction === 'message').message;
    const l2 = l1.attachments.find((a: any) => a.extraction === 'message').message;
    expect(l1.subject).toBe('I have attachments!');
    expect(l2.subject).toBe('Microsoft Outlook テスト メッセージ');
    expect(m.nestedMessageCount).toBe(2);
  });
  it('PST embedded-message attachments are opened', async () => {
    const a = await run('tika__testPST.pst');
    const withEmbedded = a.content.messages.find((m: any) => m.nestedMessageCount > 0);
    const inner = withEmbedded.attachments[0].message;
    expect(inner.subject).toBe('First email');
    expect(inner.attachments.length).toBe(1);
    expect(a.warnings).toEqual([]);
  });
  it('nesting deeper than the limit is listed, not opened', async () => {
    let msg = 'From: a@b.c\r\nSubject: level 0\r\n\r\nbottom\r\n';
    for (let i = 1; i <= 12; i++) {
      msg = `From: a@b.c\r\nSubject: level ${i}\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="b${i}"\r\n\r\n--b${i}\r\nContent-Type: text/plain\r\n\r\nwrapper ${i}\r\n--b${i}\r\nContent-Type: message/rfc822\r\n\r\n${msg}\r\n--b${i}--\r\n`;
    }
    const r = await runBytes(msg, 'eml');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    let depth = 0;
    let cur = r.artifact.content.messages[0];
    while (cur.attachments[0]?.message) {
      cur = cur.attachments[0].message;
      depth++;
    }
    expect(depth).toBe(8);
    expect(cur.attachments[0].note).toMatch(/deeper/);
    expect(r.artifact.warnings.length).toBeGreaterThan(0);
  });
});

describe('MBOX splitting', () => {
  it('a "From " body line after a blank line is not a separator unless it has an mbox date; >From is unescaped', async () => {
    for (const f of ['synthetic__mboxo-unescaped-from.mbox', 'synthetic__mboxo-crlf.mbox']) {
      const a = await run(f);
      expect(a.content.messages.map((m: any) => m.subject)).toEqual(['m0', 'm1', 'm2']);
      for (const m of a.content.messages) {
        expect(m.text).toContain('From the start of this line');
        expect(m.text).toMatch(/^From escaped once/m);
        expect(m.folderPath).toBe(f.replace(/\.mbox$/, ''));
      }
      expect(a.metadata.unescapedFromLines).toBe(3);
    }
  });
  it('envelope lines in asctime, zone and quoted-sender forms', () => {
    expect(isFromLine('From a0@x.org Mon Jan  4 10:00:00 2021')).toBe(true);
    expect(isFromLine('From 170@xxx Mon Jan 04 10:00:00 +0000 2021')).toBe(true);
    expect(isFromLine('From "naveen.andrews@enron.com" Wed Jan 30 18:07:01 2002')).toBe(true);
    expect(isFromLine('From MAILER-DAEMON Fri Jul  8 12:08:34 PDT 2011')).toBe(true);
    expect(isFromLine('From the start of this line, unescaped (mboxo writer bug)')).toBe(false);
    expect(isFromLine('From: someone@example.com')).toBe(false);
  });
  it('keeps envelope lines and their line numbers; Gmail labels become labels', async () => {
    const a = await run('tika__complex.mbox');
    expect(a.content.messages.map((m: any) => m.mbox.line)).toEqual([1, 78, 177]);
    const g = await runBytes('From 1@xxx Mon Jan 04 10:00:00 +0000 2021\nX-Gmail-Labels: Inbox,"Work, 2021",Important\nSubject: g\n\nbody\n', 'mbox');
    expect(g.ok && g.artifact.content.messages[0].labels).toEqual(['Inbox', 'Work, 2021', 'Important']);
  });
});

describe('MBOX limits', () => {
  it('a message over the size bound is still handed over (and counted), with only its start kept', async () => {
    const big = 'x'.repeat(100) + '\n';
    const text = `From a@b Mon Jan  4 10:00:00 2021\nSubject: one\n\nhi\n\nFrom a@b Mon Jan  4 10:00:00 2021\nSubject: two\n\n${big.repeat(3000)}\nFrom a@b Mon Jan  4 10:00:00 2021\nSubject: three\n\nbye\n`;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dp-mbox-'));
    const f = path.join(dir, 'big.mbox');
    fs.writeFileSync(f, text);
    const got: { size: number; truncatedFrom?: number; subject: string }[] = [];
    try {
      await splitMbox(
        f,
        async (m) => void got.push({ size: m.raw.length, truncatedFrom: m.truncatedFrom, subject: /Subject: (\w+)/.exec(m.raw.toString())![1] }),
        { maxMessageBytes: 50_000 },
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    expect(got.map((g) => g.subject)).toEqual(['one', 'two', 'three']);
    expect(got[1].size).toBeLessThanOrEqual(50_000);
    expect(got[1].truncatedFrom).toBeGreaterThan(300_000);
    expect(got[0].truncatedFrom).toBeUndefined();
  });
  it('a file without line breaks is not an mbox', async () => {
    const r = await runBytes('From a@b Mon Jan  4 10:00:00 2021\n' + 'y'.repeat(70 * 1024 * 1024), 'mbox');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(/not an mbox/);
  });
});

describe('PST folders and items', () => {
  it('folder paths, per-folder counts, store name', async () => {
    const a = await run('tika__testPST_variousBodyTypes.pst');
    expect(new Set(a.content.messages.map((m: any) => m.folderPath))).toEqual(new Set(['Top of Outlook data file/Inbox/tmp']));
    expect(a.content.folders.find((f: any) => f.path === 'Top of Outlook data file/Inbox/tmp').messageCount).toBe(4);
    const fr = await run('tika__testPST.pst');
    expect(fr.content.folders.some((f: any) => f.path === 'Début du fichier de données Outlook/Éléments supprimés')).toBe(true);
  });
  it('plain, HTML and RTF-only bodies all give text', async () => {
    const a = await run('tika__testPST_variousBodyTypes.pst');
    for (const m of a.content.messages) expect(m.text || m.htmlText || m.rtfText).toBeTruthy();
  });
});

describe('Outlook item classes', () => {
  it('contacts, appointments and tasks are one item each with their fields', async () => {
    const c = await first('tika__testMSG_Contact.msg');
    expect(c.itemClass).toBe('IPM.Contact');
    expect(c.item.givenName).toBe('Quick');
    const ap = await first('tika__testMSG_Appointment.msg');
    expect(ap.itemClass).toBe('IPM.Appointment');
    expect(ap.item.apptLocation).toBe('under lazy dog');
    expect(ap.item.apptStartWhole).toBe('2017-02-28T18:30:00.000Z');
    expect((await first('tika__testMSG_Task.msg')).itemClass).toBe('IPM.Task');
  });
});

describe('bad input fails with a clear reason', () => {
  it('empty and binary EML', async () => {
    const empty = await runBytes('', 'eml');
    expect(!empty.ok && empty.message).toMatch(/empty/);
    const bin = await runBytes(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0, 1, 2, 3]), 'eml');
    expect(bin.ok).toBe(false);
    const text = await runBytes('just some words\nand more words\n', 'eml');
    expect(!text.ok && text.message).toMatch(/header/);
  });
  it('an MBOX without envelope lines', async () => {
    const r = await runBytes('Subject: x\n\nno envelope\n', 'mbox');
    expect(!r.ok && r.message).toMatch(/mbox/);
  });
  it('a non-OLE MSG and a truncated MSG', async () => {
    const r = await runBytes('Subject: not an msg\n\n', 'msg');
    expect(!r.ok && r.message).toMatch(/MSG/);
    const real = fs.readFileSync(corpusPath('email', 'tika__testMSG.msg'));
    const t = await runBytes(real.subarray(0, 2048), 'msg');
    expect(t.ok).toBe(false);
  });
  it('a non-PST and a truncated PST', async () => {
    const r = await runBytes('!BDN not really a pst', 'pst');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.code).toBe('extraction_failed');
    const real = fs.readFileSync(corpusPath('email', 'tika__testPST_variousBodyTypes.pst'));
    const t = await runBytes(real.subarray(0, 40000), 'pst');
    expect(t.ok).toBe(false);
  });
});
