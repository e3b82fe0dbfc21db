// Outlook PST through pst-extractor (synchronous reads from the file descriptor, so the file
// is never loaded whole). Folders are walked depth-first and every item is handed over as
// soon as it is read. pst-extractor returns null for embedded-message attachments because
// it does not hand the attachment its parent's descriptor node; we give it that node, and
// the embedded message is read like any other (depth-limited).
import { statSync } from 'node:fs';
import { PSTFile } from 'pst-extractor';
import { printable } from '../kit/reasons.js';
import { ExtractionError } from '../kit/types.js';
import { rememberContent } from './service-attachments.js';
import {
  MAX_NESTING,
  address,
  attachmentLabel,
  countTree,
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

/* eslint-disable @typescript-eslint/no-explicit-any */
type Any = any;

const ATTACH_BY_VALUE = 1;
const ATTACH_EMBEDDED_MSG = 5;
const ATTACH_OLE = 6;
/** Attachments larger than this are hashed but not read for text. */
const MAX_ATTACHMENT_READ = 256 * 1024 * 1024;

function safe<T>(f: () => T, fallback: T): T {
  try {
    const v = f();
    return v === undefined ? fallback : v;
  } catch {
    return fallback;
  }
}

function recipients(m: Any): { to: EmailAddressT[]; cc: EmailAddressT[]; bcc: EmailAddressT[] } {
  const out = { to: [] as EmailAddressT[], cc: [] as EmailAddressT[], bcc: [] as EmailAddressT[] };
  const n = safe(() => m.numberOfRecipients as number, 0);
  for (let i = 0; i < n; i++) {
    const r = safe(() => m.getRecipient(i), null as Any);
    if (!r) continue;
    const a = address(r.displayName, r.smtpAddress || r.emailAddress);
    const t = r.recipientType;
    (t === 2 ? out.cc : t === 3 ? out.bcc : out.to).push(a);
  }
  return out;
}

/** The attachment's bytes; null when it has no data stream; its length when over MAX_ATTACHMENT_READ. */
function readAttachment(a: Any): Buffer | number | null {
  const s = safe(() => a.fileInputStream, null as Any);
  if (!s) return null;
  const len = typeof s.length?.toNumber === 'function' ? s.length.toNumber() : Number(s.length ?? 0);
  if (!len) return Buffer.alloc(0);
  if (len > MAX_ATTACHMENT_READ) return len;
  const buf = Buffer.alloc(len);
  s.readCompletely(buf);
  return buf;
}

function attachments(m: Any, warnings: string[], folderPath: string, depth: number): EmailAttachmentT[] {
  const out: EmailAttachmentT[] = [];
  const n = safe(() => m.numberOfAttachments as number, 0);
  for (let i = 0; i < n; i++) {
    const a = safe(() => m.getAttachment(i), null as Any);
    if (!a) {
      const reason = 'it could not be read (its entry in the PST file is damaged)';
      warnings.push(`attachment ${i + 1}: ${reason}`);
      // Listed, so that the attachments after it keep their numbers (provenance).
      const unread = { fileName: null, contentType: null, size: 0, sha256: null, disposition: null, contentId: null };
      out.push({ ...unread, extraction: 'none', missed: 'failed', note: reason });
      continue;
    }
    const fileName = a.longFilename || a.filename || a.displayName || null;
    const contentType = a.mimeTag ? String(a.mimeTag).toLowerCase() : guessContentType(fileName);
    const method = a.attachMethod;
    const base = { fileName, contentType, disposition: a.contentId ? 'inline' : 'attachment', contentId: a.contentId || null };
    if (method === ATTACH_EMBEDDED_MSG) {
      const head = {
        ...base,
        contentType: contentType ?? 'application/vnd.ms-outlook',
        size: Number(a.attachSize ?? 0),
        sha256: null,
        extraction: 'message' as const,
      };
      if (depth + 1 > MAX_NESTING) {
        warnings.push(`embedded message deeper than ${MAX_NESTING} levels not opened`);
        out.push({ ...head, message: null, missed: 'skipped', note: `not opened: nesting deeper than ${MAX_NESTING}` });
        continue;
      }
      let embedded: Any = null;
      try {
        if (!a.descriptorIndexNode) a.descriptorIndexNode = m.descriptorIndexNode;
        embedded = a.embeddedPSTMessage;
      } catch {
        warnings.push(`embedded message ${attachmentLabel(fileName, i)}: it could not be read (its data in the PST file is damaged)`);
      }
      if (embedded)
        out.push({
          ...head,
          fileName: fileName ?? `${safe(() => embedded.subject as string, '') || 'embedded'}.msg`,
          message: mapMessage(embedded, folderPath, depth + 1),
        });
      else out.push({ ...head, message: null, missed: 'failed', note: 'embedded message could not be read from the PST' });
      continue;
    }
    let read: Buffer | number | null = null;
    let damaged = false;
    try {
      read = method === ATTACH_BY_VALUE || method === ATTACH_OLE || method === 0 || method === undefined ? readAttachment(a) : null;
    } catch {
      damaged = true;
      warnings.push(`attachment ${attachmentLabel(fileName, i)}: its content could not be read (its data in the PST file is damaged)`);
    }
    const content = typeof read === 'number' ? null : read;
    out.push(
      rememberContent(
        {
          ...base,
          size: content?.length ?? (typeof read === 'number' ? read : Number(a.attachSize ?? a.filesize ?? 0)),
          sha256: content ? sha256(content) : null,
          ...extractAttachment(contentType, fileName, content),
          ...(typeof read === 'number' ? { missed: 'skipped' as const, note: `content not read: larger than ${MAX_ATTACHMENT_READ} bytes` } : {}),
          ...(read === null && !damaged && method !== undefined && method !== ATTACH_BY_VALUE
            ? { missed: 'skipped' as const, note: `attachment by reference (method ${method}): no content in the file` }
            : {}),
        },
        content,
      ),
    );
  }
  return out;
}

const ITEM_SKIP = /body|rtf|html|headers|^descriptor|nodeinfo|^pstfile|attachment|recipient/i;

function itemFields(m: Any): Record<string, unknown> | undefined {
  const cls = String(safe(() => m.messageClass, ''));
  if (!cls || /^IPM\.Note/i.test(cls)) return undefined;
  const json = safe(() => m.toJSON() as Record<string, unknown>, {} as Record<string, unknown>);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(json)) {
    if (ITEM_SKIP.test(k) || v === null || v === '' || v === undefined) continue;
    if (v instanceof Date) {
      const iso = isoDate(v);
      if (iso) out[k] = iso;
    } else if (typeof v === 'string' && v.length <= 4000) out[k] = v;
    else if (typeof v === 'number' || typeof v === 'boolean') out[k] = v;
  }
  return out;
}

function mapMessage(m: Any, folderPath: string, depth = 0): EmailMessageT {
  const warnings: string[] = [];
  const headers = parseHeaderBlock(safe(() => m.transportMessageHeaders as string, ''));
  const r = recipients(m);
  const text = safe(() => m.body as string, '') || null;
  const html = safe(() => m.bodyHTML as string, '') || null;
  let rtfText: string | null | undefined;
  if (!text && !html) rtfText = rtfToText(safe(() => m.bodyRTF as string, '') || null);
  const when: Date | null = safe(() => m.clientSubmitTime as Date | null, null) ?? safe(() => m.messageDeliveryTime as Date | null, null);
  const senderAddr = safe(() => m.senderEmailAddress as string, '');
  const senderType = safe(() => m.senderAddrtype as string, '');
  const from = senderAddr || m.senderName ? [address(m.senderName, senderType === 'EX' ? (headerFromAddress(headers) ?? senderAddr) : senderAddr)] : [];
  const item = itemFields(m);
  const msg: EmailMessageT = {
    ...(depth === 0 ? { folderPath } : {}),
    itemClass: safe(() => m.messageClass as string, '') || null,
    messageId: safe(() => m.internetMessageId as string, '') || headerValue(headers, 'message-id'),
    subject: safe(() => m.subject as string, '') || null,
    from,
    to: r.to,
    cc: r.cc,
    bcc: r.bcc,
    replyTo: [],
    date: isoDate(when),
    dateRaw: headerValue(headers, 'date') ?? (when ? isoDate(when) : null),
    inReplyTo: safe(() => m.inReplyToId as string, '') || messageIds(headerValue(headers, 'in-reply-to'))[0] || null,
    references: messageIds(headerValue(headers, 'references')),
    headers,
    text,
    html,
    htmlText: htmlToText(html),
    ...(rtfText !== undefined ? { rtfText } : {}),
    ...(item ? { item } : {}),
    attachments: attachments(m, warnings, folderPath, depth),
    attachmentCount: 0,
    totalAttachmentCount: 0,
    nestedMessageCount: 0,
    ...(warnings.length ? { warnings } : {}),
  };
  return countTree(msg);
}

function headerFromAddress(headers: { name: string; value: string }[]): string | null {
  const f = headerValue(headers, 'from');
  const m = f ? /<([^>]+)>/.exec(f) : null;
  return m ? m[1] : null;
}

export interface PstWalk {
  folders: { path: string; messageCount: number }[];
  store: Record<string, unknown>;
}

/**
 * Walks every folder of a PST and awaits `onMessage` for each item (depth-first, folder
 * order as stored). Folder paths start below the unnamed root ("Top of Outlook data file/Inbox").
 * `onUnreadable` hears of each item a folder lists that could not be read, with why.
 */
export async function walkPst(
  filePath: string,
  onMessage: (m: EmailMessageT) => Promise<void>,
  onUnreadable: (reason: string) => void,
  maxDepth = 64,
): Promise<PstWalk> {
  let pst: Any;
  try {
    pst = new PSTFile(filePath);
  } catch (e) {
    throw new ExtractionError('not a readable PST/OST file: its header or index is damaged.', 'extraction_failed', false, { cause: e });
  }
  const folders: { path: string; messageCount: number }[] = [];
  const maxUnread = Math.floor(statSync(filePath).size / 64);
  try {
    const storeObj = safe(() => pst.getMessageStore(), null as Any);
    const store: Record<string, unknown> = {
      displayName: safe(() => storeObj?.displayName as string, '') || null,
      encryption: safe(() => pst.encryptionType as number, 0),
      format: safe(() => (pst.pstFileType === 23 ? 'unicode' : 'ansi'), 'unknown'),
    };
    const root = pst.getRootFolder();
    const walk = async (folder: Any, parts: string[], depth: number): Promise<void> => {
      const path = parts.join('/');
      let count = 0;
      let damaged = 0;
      const listed = safe(() => folder.contentCount as number, 0);
      if (listed > 0) {
        for (;;) {
          let m: Any;
          try {
            m = folder.getNextChild();
          } catch (e) {
            throw new ExtractionError(`corrupt PST: an item in folder ${printable(path)} is damaged and cannot be read.`, 'corrupt_document', false, {
              cause: e,
            });
          }
          if (!m) break;
          let msg: EmailMessageT;
          try {
            msg = mapMessage(m, path);
          } catch {
            damaged++;
            onUnreadable(`an item in folder ${printable(path)} could not be read (its properties in the PST file are damaged)`);
            continue;
          }
          count++;
          await onMessage(msg);
        }
        // pst-extractor passes over an item it cannot load: the folder's own count says how many.
        // That count is a number the file states: an item takes at least one 64-byte block, so
        // no more than size / 64 can be missing.
        const unread = Math.min(listed - count - damaged, maxUnread);
        for (let i = 0; i < unread; i++) onUnreadable(`an item folder ${printable(path)} lists could not be read (its data in the PST file is damaged)`);
      }
      if (count || parts.length) folders.push({ path, messageCount: count });
      if (depth < maxDepth && safe(() => folder.hasSubfolders as boolean, false)) {
        for (const sub of folder.getSubFolders()) await walk(sub, [...parts, String(sub.displayName ?? '')], depth + 1);
      }
    };
    await walk(root, [], 0);
    return { folders, store };
  } finally {
    try {
      pst.close();
    } catch {
      /* already closed */
    }
  }
}
