// Text of attachments in formats the service parses on its own (PDF, Office/OpenDocument):
// the family's own parser runs on the attachment inside this thread, `within` the attachment's
// provenance, and the text of its blocks, cells and slides is kept on the attachment, split by
// page, sheet or slide into `parts` that carry the embedded parse's provenance
// (message 3 / attachment [2] / report.pdf / page 4). Counted under the parent message,
// never billed again. ZIP-based attachments (DOCX, XLSX, ODT …) are opened through the archive
// guard, and all the attachments of a message draw from one archive budget.
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { JsonWriter } from '../kit/json-writer.js';
import { ExtractionError, type EmbeddedParsers } from '../kit/types.js';
import { mergeProvenance } from '../kit/provenance-merge.js';
import type { Provenance } from '../kit/provenance.js';
import { ArchiveBudget, activeArchiveBudget, withArchiveBudget } from '../archive-guard.js';
import { unreadableBecause } from '../kit/reasons.js';
import type { EmailAttachmentT, EmailMessageT } from './schema.js';
import type { ParserSettings } from '../settings.js';

const MAX_ATTACHMENT_BYTES = 32 * 1024 * 1024;
const MAX_CONTENT_JSON_BYTES = 64 * 1024 * 1024;
/** Bounds of what one parsed attachment adds to the artifact: its text (once in `text`, once in `parts`) and its parts. */
export const MAX_TEXT_CHARS = 1_000_000;
export const MAX_PARTS = 5_000;

type Part = { text: string; provenance: Provenance };
type Parsed = { format: string; parts: Part[] } | { format: string; error: string; missed: 'failed' | 'skipped' } | null;

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
 * message and the messages it holds. Attachments carry their provenance already (stampProvenance).
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
    const r = await withArchiveBudget(budget, () => parseAttachment(content, a.fileName, a.provenance ?? {}, settings, embedded));
    if (!r) continue;
    if ('error' in r) {
      a.missed = r.missed;
      a.note = `${r.format}: could not be parsed (${r.error})`;
      continue;
    }
    const { parts, truncated } = boundParts(r.parts);
    a.extraction = 'parsed';
    a.format = r.format;
    a.text = parts.map((p) => p.text).join('\n');
    if (truncated) a.textTruncated = true;
    a.parts = parts;
    delete a.note;
    delete a.missed;
  }
}

async function parseAttachment(
  content: Uint8Array,
  fileName: string | null,
  within: Provenance,
  settings: ParserSettings,
  embedded: EmbeddedParsers,
): Promise<Parsed> {
  const found = embedded(Buffer.from(content.buffer, content.byteOffset, Math.min(8192, content.byteLength)), fileName);
  if (!found) return null;
  const { format } = found;
  if (content.byteLength > MAX_ATTACHMENT_BYTES)
    return { format, error: `larger than ${MAX_ATTACHMENT_BYTES} bytes, the most parsed inside a message`, missed: 'skipped' };
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
      { filePath: input, fileName, format, options: format === 'pdf' ? { pdfMode: 'SingleColumn' } : {}, settings, tempDir: dir, progress: () => {}, within },
      w,
    );
    await w.finish();
    out.end();
    await once(out, 'finish');
    if ((await stat(outPath)).size > MAX_CONTENT_JSON_BYTES) return { format, error: 'its content is too large to inline', missed: 'skipped' };
    return { format, parts: collectParts(JSON.parse(await readFile(outPath, 'utf8')), within) };
  } catch (e) {
    // A password-protected document is left out on purpose, like any format not extracted.
    const missed = e instanceof ExtractionError && e.code === 'encrypted_document' ? 'skipped' : 'failed';
    return { format, error: unreadableBecause(e, `the ${format} file is damaged or not what its name says`).slice(0, 200), missed };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The first MAX_PARTS parts and MAX_TEXT_CHARS characters of text (newlines between parts included). */
function boundParts(all: Part[]): { parts: Part[]; truncated: boolean } {
  const parts: Part[] = [];
  let room = MAX_TEXT_CHARS;
  for (const p of all) {
    if (parts.length === MAX_PARTS || room <= 0) return { parts, truncated: true };
    if (p.text.length > room) {
      parts.push({ text: p.text.slice(0, room), provenance: p.provenance });
      return { parts, truncated: true };
    }
    parts.push(p);
    room -= p.text.length + 1;
  }
  return { parts, truncated: false };
}

// Link lists repeat the text of the paragraphs they sit in.
const SKIPPED_KEYS = new Set(['links', 'hyperlinks', 'outline', 'words', 'lines', 'provenance']);

/**
 * Where a piece of the content sits when its family wrote no provenance for it: the page,
 * sheet or slide that holds it (PDF pages, spreadsheet sheets, presentation slides).
 */
function unitOf(o: Record<string, unknown>): Provenance | null {
  if (typeof o.number === 'number' && Array.isArray(o.blocks)) return { page: o.number };
  if (typeof o.number === 'number' && Array.isArray(o.textBlocks)) return { slide: o.number };
  if (typeof o.name === 'string' && Array.isArray(o.rows)) return { sheet: o.name };
  return null;
}

/**
 * Text of a family's content in document order (`text` fields, else cell `value`s), in parts:
 * consecutive pieces from one place (page, sheet, slide) form one part, their boxes or ranges
 * joined. A piece's place is the provenance its family wrote on it or on what holds it, else
 * the page, sheet or slide that holds it; every place starts from `within`.
 */
export function collectParts(content: unknown, within: Provenance = {}): Part[] {
  const parts: Part[] = [];
  const add = (text: string, provenance: Provenance): void => {
    const last = parts[parts.length - 1];
    if (last) {
      const places = [last.provenance];
      mergeProvenance(places, provenance);
      if (places.length === 1) {
        last.text += `\n${text}`;
        return;
      }
    }
    parts.push({ text, provenance: structuredClone(provenance) });
  };
  const walk = (v: unknown, at: Provenance): void => {
    if (Array.isArray(v)) {
      for (const x of v) walk(x, at);
      return;
    }
    if (!v || typeof v !== 'object') return;
    const o = v as Record<string, unknown>;
    const own = o.provenance && typeof o.provenance === 'object' ? (o.provenance as Provenance) : unitOf(o);
    const here = own ? { ...within, ...own } : at;
    if (typeof o.text === 'string') {
      if (o.text.trim()) add(o.text, here);
      return; // a block's own text: its lines and words would repeat it
    }
    if ('value' in o && (typeof o.value === 'string' || typeof o.value === 'number' || typeof o.value === 'boolean')) {
      add(String(o.value), here);
      return;
    }
    for (const [k, x] of Object.entries(o)) if (!SKIPPED_KEYS.has(k)) walk(x, here);
  };
  walk(content, within);
  return parts;
}

/** Text of a family's content in document order: `text` fields, else cell `value`s. */
export function collectText(content: unknown): string {
  return collectParts(content)
    .map((p) => p.text)
    .join('\n');
}
