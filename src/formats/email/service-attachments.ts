// Text of attachments in formats the service parses on its own (PDF, Office/OpenDocument):
// the family's own parser runs on the attachment inside this thread and the text of its
// blocks, cells and slides is kept on the attachment. Counted under the parent message,
// never billed again. ZIP-based attachments (DOCX, XLSX, ODT …) are opened through the archive
// guard, and all the attachments of a message draw from one archive budget.
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { JsonWriter } from '../kit/json-writer.js';
import type { EmbeddedParsers } from '../kit/types.js';
import { ArchiveBudget, activeArchiveBudget, withArchiveBudget } from '../archive-guard.js';
import { unreadableBecause } from '../kit/reasons.js';
import type { EmailAttachmentT, EmailMessageT } from './schema.js';
import type { ParserSettings } from '../settings.js';

const MAX_ATTACHMENT_BYTES = 32 * 1024 * 1024;
const MAX_CONTENT_JSON_BYTES = 64 * 1024 * 1024;
const MAX_TEXT_CHARS = 1_000_000;

/** Attachment bytes kept until the message is written (the mappers are synchronous). */
const pending = new WeakMap<EmailAttachmentT, Uint8Array>();

export function rememberContent(attachment: EmailAttachmentT, content: Uint8Array | null): EmailAttachmentT {
  if (content && attachment.extraction === 'none' && content.byteLength > 0) pending.set(attachment, content);
  return attachment;
}

/**
 * Extracts the text of every pending service-format attachment (the formats `embedded` finds
 * a parser for), nested messages included, with the message's own parser settings. `budget` bounds what their packages may inflate
 * to, together: the upload's when the caller runs inside withArchiveBudget, else one for this
 * message and the messages it holds.
 */
export async function enrichAttachments(
  msg: EmailMessageT,
  settings: ParserSettings,
  embedded: EmbeddedParsers | undefined,
  budget: ArchiveBudget = activeArchiveBudget(),
): Promise<void> {
  for (const a of msg.attachments) {
    if (a.message) await enrichAttachments(a.message, settings, embedded, budget);
    const content = pending.get(a);
    if (!content) continue;
    pending.delete(a);
    if (!embedded) continue;
    const r = await withArchiveBudget(budget, () => parseAttachment(content, a.fileName, settings, embedded));
    if (!r) continue;
    if ('error' in r) {
      a.note = `${r.format}: could not be parsed (${r.error})`;
      continue;
    }
    a.extraction = 'parsed';
    a.format = r.format;
    a.text = r.text.length > MAX_TEXT_CHARS ? r.text.slice(0, MAX_TEXT_CHARS) : r.text;
    if (r.text.length > MAX_TEXT_CHARS) a.textTruncated = true;
    delete a.note;
  }
}

async function parseAttachment(
  content: Uint8Array,
  fileName: string | null,
  settings: ParserSettings,
  embedded: EmbeddedParsers,
): Promise<{ format: string; text: string } | { format: string; error: string } | null> {
  if (content.byteLength > MAX_ATTACHMENT_BYTES) return null;
  const found = embedded(Buffer.from(content.buffer, content.byteOffset, Math.min(8192, content.byteLength)), fileName);
  if (!found) return null;
  const { format } = found;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'docparse-att-'));
  try {
    const input = path.join(dir, `attachment.${format}`);
    await writeFile(input, content);
    const outPath = path.join(dir, 'content.json');
    const out = createWriteStream(outPath);
    await once(out, 'open');
    const w = new JsonWriter(out);
    const parse = await found.load();
    await parse(
      { filePath: input, fileName, format, options: format === 'pdf' ? { pdfMode: 'SingleColumn' } : {}, settings, tempDir: dir, progress: () => {} },
      w,
    );
    await w.finish();
    out.end();
    await once(out, 'finish');
    if ((await stat(outPath)).size > MAX_CONTENT_JSON_BYTES) return { format, error: 'its content is too large to inline' };
    return { format, text: collectText(JSON.parse(await readFile(outPath, 'utf8'))) };
  } catch (e) {
    return { format, error: unreadableBecause(e, `the ${format} file is damaged or not what its name says`).slice(0, 200) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// Link lists repeat the text of the paragraphs they sit in.
const SKIPPED_KEYS = new Set(['links', 'hyperlinks', 'outline', 'words', 'lines']);

/** Text of a family's content in document order: `text` fields, else cell `value`s. */
export function collectText(content: unknown): string {
  const parts: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) {
      for (const x of v) walk(x);
      return;
    }
    if (!v || typeof v !== 'object') return;
    const o = v as Record<string, unknown>;
    if (typeof o.text === 'string') {
      if (o.text.trim()) parts.push(o.text);
      return; // a block's own text: its lines and words would repeat it
    }
    if ('value' in o && (typeof o.value === 'string' || typeof o.value === 'number' || typeof o.value === 'boolean')) {
      parts.push(String(o.value));
      return;
    }
    for (const [k, x] of Object.entries(o)) if (!SKIPPED_KEYS.has(k)) walk(x);
  };
  walk(content);
  return parts.join('\n');
}
