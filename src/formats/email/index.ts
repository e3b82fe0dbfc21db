// Email family: EML, MBOX, MSG and PST. Each billed item (one per message; nested messages
// are not billed again) is written to `content.messages` as soon as it is read.
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { JsonWriter } from '../kit/json-writer.js';
import { CompletenessCounter } from '../kit/completeness.js';
import { ExtractionError, type EmbeddedParsers, type FormatParser, type ParseInput, type ParseOutcome, type UnitMeter } from '../kit/types.js';
import { StreamingUnits } from '../streaming-units.js';
import { headerValue } from './common.js';
import { unreadableBecause } from '../kit/reasons.js';
import { splitMbox, MboxTooLarge } from './mbox.js';
import { parseMime } from './mime.js';
import { enrichAttachments } from './service-attachments.js';
import { readMsg } from './msg.js';
import { walkPst } from './pst.js';
import { stampProvenance } from './provenance.js';
import { countMessage } from './completeness.js';
import type { EmailMessageT } from './schema.js';
import type { ParserSettings } from '../settings.js';

export { isFromLine, splitMbox } from './mbox.js';
export { parseMime } from './mime.js';

export const MAX_EML_BYTES = 512 * 1024 * 1024;
/** Bytes of one MBOX message parsed; a larger message is counted, with its headers only. */
export const MAX_MBOX_MESSAGE_BYTES = 64 * 1024 * 1024;

/** Streams messages into content.messages and keeps the totals. */
class MessageSink {
  count = 0;
  attachments = 0;
  totalAttachments = 0;
  nested = 0;
  warnings: string[] = [];

  private readonly units: StreamingUnits;
  private readonly completeness = new CompletenessCounter().kind('messages').kind('attachments');

  constructor(
    private readonly w: JsonWriter,
    format: string,
    private readonly settings: ParserSettings,
    private readonly embedded: EmbeddedParsers | undefined,
    meter?: UnitMeter,
  ) {
    this.units = new StreamingUnits(meter);
    w.beginObject().field('format', format).key('messages').beginArray();
  }

  async add(m: EmailMessageT): Promise<void> {
    // Each message is a unit: held before its attachments are parsed or it is written.
    await this.units.need(this.count + 1);
    stampProvenance(m, this.count + 1);
    await enrichAttachments(m, this.settings, this.embedded);
    countMessage(this.completeness, m);
    this.w.value({ index: this.count, ...m });
    this.count++;
    this.attachments += m.attachmentCount;
    this.totalAttachments += m.totalAttachmentCount;
    this.nested += m.nestedMessageCount;
    const collect = (msg: EmailMessageT, where: string): void => {
      for (const x of msg.warnings ?? []) if (this.warnings.length < 100) this.warnings.push(`${where}: ${x}`);
      msg.attachments.forEach((a, i) => a.message && collect(a.message, `${where}, nested message ${i}`));
    };
    collect(m, `message ${this.count - 1}`);
    await this.w.maybeFlush();
  }

  /** A message the mailbox holds that could not be read (not in content.messages). */
  unreadable(reason: string): void {
    this.completeness.missed('messages', 'failed', reason);
  }

  end(extra: Record<string, unknown> = {}): void {
    this.w
      .endArray()
      .field('messageCount', this.count)
      .field('attachmentCount', this.attachments)
      .field('totalAttachmentCount', this.totalAttachments)
      .field('nestedMessageCount', this.nested);
    for (const [k, v] of Object.entries(extra)) this.w.field(k, v);
    this.w.endObject();
  }

  outcome(format: string, metadata: Record<string, unknown>, warnings: string[] = []): ParseOutcome {
    return {
      documentFormat: format,
      documentUnits: this.count,
      metadata: {
        messageCount: this.count,
        attachmentCount: this.attachments,
        totalAttachmentCount: this.totalAttachments,
        nestedMessageCount: this.nested,
        ...metadata,
      },
      warnings: [...warnings, ...this.warnings],
      completeness: this.completeness.result(),
    };
  }
}

/** Offset of the blank line that ends the header block (or the whole buffer). */
function headerEnd(buf: Buffer): number {
  const lf = buf.indexOf('\n\n');
  const crlf = buf.indexOf('\r\n\r\n');
  const cands = [lf, crlf].filter((x) => x >= 0);
  return cands.length ? Math.min(...cands) : Math.min(buf.length, 1024 * 1024);
}

/** X-Gmail-Labels: comma-separated, a label with a comma is double-quoted. */
function splitLabels(v: string): string[] {
  const out: string[] = [];
  for (const m of v.matchAll(/\s*("(?:[^"\\]|\\.)*"|[^,]*)\s*(?:,|$)/g)) {
    const t = m[1].startsWith('"') ? m[1].slice(1, -1).replace(/\\(.)/g, '$1') : m[1].trim();
    if (t) out.push(t);
    if (m.index !== undefined && m.index + m[0].length >= v.length) break;
  }
  return out;
}

async function mime(buf: Buffer, what: string): Promise<EmailMessageT> {
  try {
    return await parseMime(buf);
  } catch (e) {
    if (e instanceof ExtractionError) throw new ExtractionError(`${what} is not a readable email message: ${e.message}`);
    throw new ExtractionError(`${what} is not a readable email message: its MIME structure is damaged.`, 'extraction_failed', false, { cause: e });
  }
}

export const parseEml: FormatParser = async (input: ParseInput, content: JsonWriter) => {
  const { size } = await stat(input.filePath);
  if (size === 0) throw new ExtractionError('the file is empty');
  if (size > MAX_EML_BYTES) throw new ExtractionError(`EML file is ${size} bytes; the largest accepted is ${MAX_EML_BYTES}`, 'document_too_large');
  const buf = await readFile(input.filePath);
  if (buf.subarray(0, 8192).includes(0) && !/^[\x20-\x7e]+:/.test(buf.subarray(0, 64).toString('latin1'))) {
    throw new ExtractionError('the file is binary, not an RFC 5322 message');
  }
  const msg = await mime(buf, 'the file');
  const sink = new MessageSink(content, 'eml', input.settings, input.embedded, input.units);
  await sink.add(msg);
  sink.end();
  return sink.outcome('eml', { bytes: size });
};

export const parseMbox: FormatParser = async (input: ParseInput, content: JsonWriter) => {
  const { size } = await stat(input.filePath);
  if (size === 0) throw new ExtractionError('the file is empty');
  const mailbox = input.fileName ? path.basename(input.fileName).replace(/\.[^.]+$/, '') : null;
  const sink = new MessageSink(content, 'mbox', input.settings, input.embedded, input.units);
  let failed = 0;
  let stats;
  try {
    stats = await splitMbox(
      input.filePath,
      async (m) => {
        let msg: EmailMessageT;
        try {
          if (m.truncatedFrom !== undefined) {
            // Too large to parse whole: keep the header block, count the message, say so.
            const end = headerEnd(m.raw);
            msg = await parseMime(Buffer.concat([m.raw.subarray(0, end), Buffer.from('\r\n\r\n')]));
            msg.warnings = [
              ...(msg.warnings ?? []),
              `message of ${m.truncatedFrom} bytes is larger than ${MAX_MBOX_MESSAGE_BYTES}: headers only, body and attachments not parsed`,
            ];
          } else msg = await parseMime(m.raw);
        } catch (e) {
          failed++;
          msg = {
            messageId: null,
            subject: null,
            from: [],
            to: [],
            cc: [],
            bcc: [],
            replyTo: [],
            date: null,
            dateRaw: null,
            inReplyTo: null,
            references: [],
            headers: [],
            text: m.raw.toString('utf8').slice(0, 1024 * 1024) || null,
            html: null,
            htmlText: null,
            attachments: [],
            attachmentCount: 0,
            totalAttachmentCount: 0,
            nestedMessageCount: 0,
            missed: 'failed',
            warnings: [`not parsed as MIME: ${unreadableBecause(e, 'its MIME structure is damaged')}`],
          };
        }
        const labels = headerValue(msg.headers, 'x-gmail-labels');
        await sink.add({
          folderPath: mailbox,
          ...(labels ? { labels: splitLabels(labels) } : {}),
          ...msg,
          mbox: { fromLine: m.fromLine, line: m.line },
        });
      },
      { maxMessageBytes: MAX_MBOX_MESSAGE_BYTES, onProgress: (b) => input.progress(b / size) },
    );
  } catch (e) {
    if (e instanceof MboxTooLarge) throw new ExtractionError(e.message);
    throw e;
  }
  if (sink.count === 0) throw new ExtractionError('not an mbox file: no "From " envelope line with an mbox date was found');
  sink.end();
  const warnings: string[] = [];
  if (stats.preambleBytes) warnings.push(`${stats.preambleBytes} bytes before the first "From " line were not part of any message`);
  if (failed) warnings.push(`${failed} messages could not be parsed as MIME; their raw text is kept`);
  return sink.outcome('mbox', { bytes: size, mailbox, unescapedFromLines: stats.unescaped }, warnings);
};

export const parseMsg: FormatParser = async (input: ParseInput, content: JsonWriter) => {
  const { size } = await stat(input.filePath);
  const { message, codepage } = await readMsg(input.filePath, size);
  const sink = new MessageSink(content, 'msg', input.settings, input.embedded, input.units);
  await sink.add(message);
  sink.end();
  return sink.outcome('msg', { bytes: size, itemClass: message.itemClass ?? null, ansiCodepage: codepage });
};

export const parsePst: FormatParser = async (input: ParseInput, content: JsonWriter) => {
  const { size } = await stat(input.filePath);
  const sink = new MessageSink(content, 'pst', input.settings, input.embedded, input.units);
  let embedded = 0;
  let unreadable = 0;
  const walk = await walkPst(
    input.filePath,
    async (m) => {
      embedded += m.attachments.filter((a) => a.extraction === 'message' && a.message === null).length;
      await sink.add(m);
      if ((sink.count & 31) === 0) input.progress(Math.min(0.99, sink.count / 1000));
    },
    (reason) => {
      unreadable++;
      sink.unreadable(reason);
    },
  );
  sink.end({ folders: walk.folders, store: walk.store });
  const warnings = embedded ? [`${embedded} embedded-message attachments could not be opened; they are counted`] : [];
  if (unreadable) warnings.push(`${unreadable} items the PST's folders list could not be read; they are not in messages`);
  return sink.outcome('pst', { bytes: size, folderCount: walk.folders.length, store: walk.store }, warnings);
};
