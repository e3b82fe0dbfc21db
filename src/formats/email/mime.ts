// RFC 5322 / MIME messages (EML, and each MBOX item) through mailparser. Nested
// message/rfc822 parts come back from mailparser as attachments: they are parsed here,
// recursively, up to MAX_NESTING.
import { simpleParser, type AddressObject, type Attachment, type ParsedMail } from 'mailparser';
import { rememberContent } from './service-attachments.js';
import { ExtractionError } from '../kit/types.js';
import { MAX_NESTING, countTree, decodeWords, extractAttachment, headerValue, htmlToText, isoDate, messageIds, sha256 } from './common.js';
import { printable, unreadableBecause } from '../kit/reasons.js';
import type { EmailAddressT, EmailAttachmentT, EmailMessageT } from './schema.js';

function addresses(v: AddressObject | AddressObject[] | undefined): EmailAddressT[] {
  if (!v) return [];
  const out: EmailAddressT[] = [];
  const push = (list: { name?: string; address?: string; group?: { name?: string; address?: string }[] }[]): void => {
    for (const a of list) {
      if (a.group) push(a.group);
      else if (a.address || a.name) out.push({ name: a.name || null, address: a.address || null });
    }
  };
  for (const o of Array.isArray(v) ? v : [v]) push(o.value ?? []);
  return out;
}

function rawHeaders(m: ParsedMail): { name: string; value: string }[] {
  const out: { name: string; value: string }[] = [];
  for (const h of m.headerLines ?? []) {
    const i = h.line.indexOf(':');
    const name = i > 0 ? h.line.slice(0, i).trim() : '';
    if (!/^[\x21-\x39\x3b-\x7e]+$/.test(name)) continue; // not a header field (RFC 5322 field-name)
    const value = h.line
      .slice(i + 1)
      .replace(/\r?\n[ \t]+/g, ' ')
      .trim();
    out.push({ name, value: decodeWords(value) });
    if (out.length >= 1000) break;
  }
  return out;
}

const MESSAGE_TYPES = new Set(['message/rfc822', 'message/global']);

function charsetOf(a: Attachment): string | null {
  const ct = a.headers?.get('content-type') as { params?: { charset?: string } } | string | undefined;
  if (ct && typeof ct === 'object' && ct.params?.charset) return ct.params.charset;
  return null;
}

async function attachment(a: Attachment, depth: number, warnings: string[]): Promise<EmailAttachmentT> {
  const content: Buffer = a.content ?? Buffer.alloc(0);
  const contentType = a.contentType ? a.contentType.toLowerCase() : null;
  const base = {
    fileName: a.filename ?? null,
    contentType,
    size: content.length,
    sha256: sha256(content),
    disposition: a.contentDisposition ?? null,
    contentId: a.contentId ?? a.cid ?? null,
  };
  if (contentType && MESSAGE_TYPES.has(contentType)) {
    if (depth + 1 > MAX_NESTING) {
      warnings.push(`nested message deeper than ${MAX_NESTING} levels not opened`);
      return { ...base, extraction: 'message', message: null, missed: 'skipped', note: `not opened: nesting deeper than ${MAX_NESTING}` };
    }
    try {
      const nested = await parseMime(content, depth + 1);
      return { ...base, extraction: 'message', message: nested };
    } catch (e) {
      return {
        ...base,
        extraction: 'message',
        message: null,
        missed: 'failed',
        note: `nested message unreadable: ${unreadableBecause(e, 'its MIME structure is damaged')}`,
      };
    }
  }
  return rememberContent({ ...base, ...extractAttachment(contentType, a.filename ?? null, content, charsetOf(a)) }, content);
}

/** Parses one MIME message (bytes) into the artifact's message shape. */
export async function parseMime(source: Buffer, depth = 0): Promise<EmailMessageT> {
  // skipHtmlToText: `text` is only a real text part; the HTML's text is computed once, below.
  const m = await simpleParser(source, { skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true, skipTextLinks: true, keepCidLinks: true } as Record<
    string,
    unknown
  >);
  const warnings: string[] = [];
  const headers = rawHeaders(m);
  const dateRaw = headerValue(headers, 'date');
  // mailparser substitutes "now" for a missing or unparseable Date: only a real, parseable header counts.
  const parsedByMailparser = m.date instanceof Date && Math.abs(m.date.getTime() - Date.now()) > 120_000 ? isoDate(m.date) : null;
  const date = dateRaw ? (parsedByMailparser ?? isoDate(dateRaw)) : null;
  if (dateRaw && !date) warnings.push(`unparseable Date header: ${printable(dateRaw, 100)}`);
  const html = typeof m.html === 'string' ? m.html : null;
  const attachments: EmailAttachmentT[] = [];
  for (const a of m.attachments ?? []) attachments.push(await attachment(a, depth, warnings));
  const senderHeader = m.headers.get('sender') as AddressObject | undefined;
  const msg: EmailMessageT = {
    messageId: m.messageId ?? null,
    subject: m.subject ?? null,
    from: addresses(m.from),
    ...(senderHeader ? { sender: addresses(senderHeader)[0] ?? null } : {}),
    to: addresses(m.to),
    cc: addresses(m.cc),
    bcc: addresses(m.bcc),
    replyTo: addresses(m.replyTo),
    date,
    dateRaw,
    inReplyTo: m.inReplyTo ?? null,
    references: messageIds(m.references ?? null),
    headers,
    text: m.text ?? null,
    html,
    htmlText: htmlToText(html),
    attachments,
    attachmentCount: 0,
    totalAttachmentCount: 0,
    nestedMessageCount: 0,
    ...(warnings.length ? { warnings } : {}),
  };
  if (!headers.length && (depth === 0 || (!msg.text && !attachments.length))) throw new ExtractionError('no header fields: not an RFC 5322 message');
  return countTree(msg);
}
