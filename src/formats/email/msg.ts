// Outlook MSG through @kenjiuno/msgreader. Non-Unicode (ANSI) strings are decoded with the
// message's code page: the file is read once to learn it, then read with it. Embedded MSG
// attachments are mapped recursively (depth-limited). One billed item per file.
import { rememberContent } from './service-attachments.js';
import { readFile } from 'node:fs/promises';
import MsgReaderModule from '@kenjiuno/msgreader';
import { decompressRTF } from '@kenjiuno/decompressrtf';
import { assertSoundOle2 } from '../ole2-guard.js';
import { ExtractionError } from '../kit/types.js';
import {
  MAX_NESTING,
  address,
  attachmentLabel,
  codePageEncoding,
  countTree,
  decodeText,
  extractAttachment,
  guessContentType,
  headerValue,
  htmlToText,
  isoDate,
  messageIds,
  parseHeaderBlock,
  rtfToText,
  sha256,
} from './common.js';
import type { EmailAddressT, EmailAttachmentT, EmailMessageT } from './schema.js';

type Fields = Record<string, any> & { attachments?: Fields[]; recipients?: Fields[] };
type Reader = { getFileData(): Fields; getAttachment(a: Fields): { fileName: string; content: Uint8Array }; parserConfig?: { ansiEncoding?: string } };
const MsgReader = ((MsgReaderModule as unknown as { default?: unknown }).default ?? MsgReaderModule) as new (buf: ArrayBuffer | Buffer) => Reader;

export const MAX_MSG_BYTES = 512 * 1024 * 1024;

/** Fields mapped into the common message shape; the rest of a non-mail item goes to `item`. */
const MAPPED = new Set([
  'dataType',
  'attachments',
  'recipients',
  'subject',
  'senderName',
  'senderEmail',
  'senderSmtpAddress',
  'body',
  'bodyHtml',
  'html',
  'headers',
  'compressedRtf',
  'messageClass',
  'messageId',
  'clientSubmitTime',
  'messageDeliveryTime',
  'rawProps',
  'error',
  'innerMsgContentFields',
  'innerMsgContent',
  'normalizedSubject',
  'conversationTopic',
]);

function sender(d: Fields, headers: { name: string; value: string }[]): EmailAddressT[] {
  // Exchange senders carry an X.500 DN; prefer an SMTP address from the properties or the transport headers.
  const fromHeader = /<([^<>\s]+@[^<>\s]+)>/.exec(headerValue(headers, 'from') ?? '')?.[1];
  const addr = d.senderSmtpAddress || d.sentRepresentingSmtpAddress || (d.senderAddressType === 'EX' ? fromHeader : d.senderEmail) || d.senderEmail;
  if (!addr && !d.senderName) return [];
  return [address(d.senderName, addr)];
}

function recipients(d: Fields, type: 'to' | 'cc' | 'bcc'): EmailAddressT[] {
  return (d.recipients ?? []).filter((r) => (r.recipType ?? 'to') === type).map((r) => address(r.name, r.smtpAddress || r.email));
}

function itemFields(d: Fields): Record<string, unknown> | undefined {
  const cls = String(d.messageClass ?? '');
  if (!cls || /^IPM\.Note/i.test(cls)) return undefined;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(d)) {
    if (MAPPED.has(k)) continue;
    if (typeof v === 'string' && v.length <= 4000) out[k] = /Time$|Whole$|^clip(Start|End)$/.test(k) ? (isoDate(v) ?? v) : v;
    else if (typeof v === 'number' || typeof v === 'boolean') out[k] = v;
  }
  return out;
}

function bodies(d: Fields, cp: string | null): { text: string | null; html: string | null; rtfText?: string | null } {
  const text = typeof d.body === 'string' && d.body.length ? d.body : null;
  let html: string | null = typeof d.bodyHtml === 'string' && d.bodyHtml.length ? d.bodyHtml : null;
  if (!html && d.html instanceof Uint8Array && d.html.length) html = decodeText(d.html, codePageEncoding(d.internetCodepage) ?? cp);
  if (text || html || !(d.compressedRtf instanceof Uint8Array)) return { text, html };
  try {
    const rtf = Buffer.from(decompressRTF(Array.from(d.compressedRtf as Uint8Array))).toString('latin1');
    return { text, html, rtfText: rtfToText(rtf, cp ?? 'windows-1252') };
  } catch {
    return { text, html, rtfText: null };
  }
}

function mapMessage(reader: Reader, d: Fields, depth: number, cp: string | null): EmailMessageT {
  const headers = parseHeaderBlock(typeof d.headers === 'string' ? d.headers.replace(/^Microsoft Mail Internet Headers Version 2\.0\r?\n/, '') : null);
  const dateRaw = d.clientSubmitTime ?? d.messageDeliveryTime ?? headerValue(headers, 'date') ?? null;
  const b = bodies(d, cp);
  const warnings: string[] = [];
  const attachments: EmailAttachmentT[] = [];
  for (const [index, a] of (d.attachments ?? []).entries()) {
    if (a.innerMsgContent) {
      let bytes: Uint8Array | null;
      try {
        bytes = reader.getAttachment(a).content;
      } catch {
        bytes = null;
      }
      const inner = a.innerMsgContentFields as Fields | undefined;
      const base = {
        fileName: (a.name ?? inner?.subject ?? 'embedded') + '.msg',
        contentType: 'application/vnd.ms-outlook',
        size: bytes?.length ?? a.contentLength ?? 0,
        sha256: bytes ? sha256(bytes) : null,
        disposition: 'attachment',
        contentId: a.pidContentId ?? null,
      };
      if (!inner) attachments.push({ ...base, extraction: 'message', message: null, missed: 'failed', note: 'embedded message unreadable' });
      else if (depth + 1 > MAX_NESTING) {
        warnings.push(`embedded message deeper than ${MAX_NESTING} levels not opened`);
        attachments.push({ ...base, extraction: 'message', message: null, missed: 'skipped', note: `not opened: nesting deeper than ${MAX_NESTING}` });
      } else attachments.push({ ...base, extraction: 'message', message: mapMessage(reader, inner, depth + 1, cp) });
      continue;
    }
    const fileName = a.fileName ?? a.fileNameShort ?? a.name ?? null;
    let content: Uint8Array | null = null;
    try {
      content = reader.getAttachment(a).content;
    } catch {
      // msgreader fails with its own TypeError when the attachment's data stream is missing.
      warnings.push(
        `attachment ${attachmentLabel(fileName, index)}: its content could not be read (the attachment's data in the MSG file is missing or damaged)`,
      );
    }
    const contentType = a.attachMimeTag ? String(a.attachMimeTag).toLowerCase() : guessContentType(fileName);
    attachments.push(
      rememberContent(
        {
          fileName,
          contentType,
          size: content?.length ?? a.contentLength ?? 0,
          sha256: content ? sha256(content) : null,
          disposition: a.attachmentHidden || a.pidContentId ? 'inline' : 'attachment',
          contentId: a.pidContentId ?? null,
          ...extractAttachment(contentType, fileName, content),
        },
        content,
      ),
    );
  }
  const item = itemFields(d);
  const msg: EmailMessageT = {
    itemClass: d.messageClass ?? null,
    messageId: d.messageId ?? headerValue(headers, 'message-id') ?? null,
    subject: d.subject ?? null,
    from: sender(d, headers),
    to: recipients(d, 'to'),
    cc: recipients(d, 'cc'),
    bcc: recipients(d, 'bcc'),
    replyTo: [],
    date: isoDate(dateRaw),
    dateRaw,
    inReplyTo: messageIds(headerValue(headers, 'in-reply-to'))[0] ?? null,
    references: messageIds(headerValue(headers, 'references')),
    headers,
    text: b.text,
    html: b.html,
    htmlText: htmlToText(b.html),
    ...(b.rtfText !== undefined ? { rtfText: b.rtfText } : {}),
    ...(item ? { item } : {}),
    attachments,
    attachmentCount: 0,
    totalAttachmentCount: 0,
    nestedMessageCount: 0,
    ...(warnings.length ? { warnings } : {}),
  };
  const replyTo = headerValue(headers, 'reply-to');
  if (replyTo)
    msg.replyTo = replyTo.split(',').map((s) => {
      const m = /^\s*"?([^"<]*)"?\s*<([^>]+)>\s*$/.exec(s);
      return m ? address(m[1], m[2]) : address(null, s);
    });
  return countTree(msg);
}

/** Reads one MSG file into a message (with its embedded messages). */
export async function readMsg(filePath: string, size: number): Promise<{ message: EmailMessageT; codepage: string | null }> {
  if (size > MAX_MSG_BYTES) throw new ExtractionError(`MSG file is ${size} bytes; the largest accepted is ${MAX_MSG_BYTES}`, 'document_too_large');
  const buf = await readFile(filePath);
  if (buf.length < 8 || buf.readUInt32BE(0) !== 0xd0cf11e0) throw new ExtractionError('not an Outlook MSG file: no OLE compound-file signature');
  // msgreader follows sector chains and directory links without loop checks.
  await assertSoundOle2(buf);
  let reader: Reader;
  let first: Fields;
  try {
    reader = new MsgReader(buf);
    first = reader.getFileData();
  } catch (e) {
    throw new ExtractionError('unreadable MSG file: its property streams are damaged or inconsistent.', 'extraction_failed', false, { cause: e });
  }
  // msgreader's only error here, 'Unsupported file type!', means the 8-byte OLE2 signature is not whole.
  if (first.error)
    throw new ExtractionError('not an Outlook MSG file: its OLE compound-file signature is incomplete', 'extraction_failed', false, { cause: first.error });
  if (first.dataType !== 'msg' && !first.messageClass && !first.subject && !(first.attachments ?? []).length) {
    throw new ExtractionError('not an Outlook message: the compound file holds no message properties');
  }
  // ANSI strings use the message code page (PR_MESSAGE_CODEPAGE), else the internet code page's Windows equivalent.
  const cp = codePageEncoding(first.messageCodepage) ?? codePageEncoding(first.internetCodepage);
  let d = first;
  if (cp && cp !== 'utf-8') {
    reader = new MsgReader(buf);
    reader.parserConfig = { ansiEncoding: cp };
    d = reader.getFileData();
  }
  return { message: mapMessage(reader, d, 0, cp), codepage: cp };
}
