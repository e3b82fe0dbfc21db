// MBOX read as a stream and split strictly: a "From " line starts a message only at the
// start of the file or after a blank line, and only when it carries an mbox envelope date
// ("From sender Mon Jan  4 10:00:00 2021", with an optional zone). Body lines ">From …"
// (mboxrd/mboxo escapes) lose one '>'. Each message is handed over as soon as it ends.
import { createReadStream } from 'node:fs';

const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const MON = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const TIME = '\\d{1,2}:\\d{2}(?::\\d{2})?';
const ZONE = '(?:[+-]\\d{4}|[A-Z]{1,5}(?:[+-]\\d{1,4})?)';
/** asctime form (optional zone before or after the year) or an RFC 5322-like date. */
const FROM_LINE = new RegExp(
  `^From (?:"[^"]*"\\S*|\\S*)\\s+(?:${DAY}\\s+${MON}\\s+\\d{1,2}\\s+${TIME}(?:\\s+${ZONE})?\\s+\\d{4}(?:\\s+${ZONE})?|${DAY},?\\s+\\d{1,2}\\s+${MON}\\s+\\d{4}\\s+${TIME}(?:\\s+${ZONE})?)\\s*$`,
);

export function isFromLine(line: string): boolean {
  return line.startsWith('From ') && FROM_LINE.test(line.replace(/\r?\n$/, ''));
}

export interface MboxMessage {
  /** Message bytes with the envelope line removed and >From unescaped. */
  raw: Buffer;
  fromLine: string;
  /** 1-based line of the envelope line. */
  line: number;
  /** Bytes of the whole message when it was larger than maxMessageBytes: `raw` then holds only its start. */
  truncatedFrom?: number;
}

export interface MboxStats {
  /** Bytes before the first envelope line (not a message). */
  preambleBytes: number;
  unescaped: number;
}

const MAX_LINE_PEEK = 1024;
const ESCAPED_FROM = /^>+From /;

/**
 * Streams an mbox file and calls `onMessage` for each message, awaiting it (backpressure).
 * `maxMessageBytes` bounds the bytes kept of one message; a larger one is handed over with
 * only its first maxMessageBytes (enough for its headers) and `truncatedFrom` set, so it is
 * still counted. A single line longer than maxLineBytes (no line breaks: not an mbox) throws.
 */
export async function splitMbox(
  filePath: string,
  onMessage: (m: MboxMessage) => Promise<void>,
  opts: { maxMessageBytes: number; maxLineBytes?: number; onProgress?: (bytes: number) => void },
): Promise<MboxStats> {
  const stats: MboxStats = { preambleBytes: 0, unescaped: 0 };
  let parts: Buffer[] = [];
  let size = 0;
  let current: { fromLine: string; line: number } | null = null;
  let prevBlank = true;
  let lineNo = 0;
  let read = 0;
  // A message's trailing blank line belongs to the separator: hold it back until we know.
  let heldBlank: Buffer | null = null;
  let total = 0; // bytes of the current message, kept or not
  const maxLine = opts.maxLineBytes ?? 64 * 1024 * 1024;

  const finish = async (): Promise<void> => {
    if (current) {
      const raw = Buffer.concat(parts, size);
      const m: MboxMessage = { raw, fromLine: current.fromLine, line: current.line, ...(total > size ? { truncatedFrom: total } : {}) };
      parts = [];
      size = 0;
      total = 0;
      current = null;
      await onMessage(m);
    }
  };

  const onLine = async (line: Buffer): Promise<void> => {
    lineNo++;
    const blank = line.length === 0 || (line.length === 1 && (line[0] === 10 || line[0] === 13)) || (line.length === 2 && line[0] === 13 && line[1] === 10);
    if (prevBlank && line.length >= 5 && line[0] === 0x46 && line[1] === 0x72 && line[2] === 0x6f && line[3] === 0x6d && line[4] === 0x20) {
      const text = line.subarray(0, MAX_LINE_PEEK).toString('latin1');
      if (isFromLine(text)) {
        heldBlank = null; // the blank line before the envelope is the separator
        await finish();
        current = { fromLine: line.toString('utf8').replace(/\r?\n$/, ''), line: lineNo };
        prevBlank = false;
        return;
      }
    }
    prevBlank = blank;
    if (!current) {
      stats.preambleBytes += line.length;
      return;
    }
    if (heldBlank) {
      total += heldBlank.length;
      if (size + heldBlank.length <= opts.maxMessageBytes) {
        parts.push(heldBlank);
        size += heldBlank.length;
      }
      heldBlank = null;
    }
    if (blank) {
      heldBlank = line;
      return;
    }
    let out = line;
    if (line[0] === 0x3e && ESCAPED_FROM.test(line.subarray(0, 64).toString('latin1'))) {
      out = line.subarray(1);
      stats.unescaped++;
    }
    total += out.length;
    if (size + out.length <= opts.maxMessageBytes) {
      parts.push(out);
      size += out.length;
    }
  };

  const stream = createReadStream(filePath, { highWaterMark: 1024 * 1024 });
  // Pieces of a line that spans chunks (joined once, when its end arrives).
  let carry: Buffer[] = [];
  let carryLen = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    read += chunk.length;
    let start = 0;
    let nl = chunk.indexOf(10);
    if (nl < 0) {
      carry.push(chunk);
      carryLen += chunk.length;
      if (carryLen > maxLine) throw new MboxTooLarge(lineNo + 1, maxLine);
      continue;
    }
    if (carry.length) {
      carry.push(chunk.subarray(0, nl + 1));
      await onLine(Buffer.concat(carry));
      carry = [];
      carryLen = 0;
      start = nl + 1;
      nl = chunk.indexOf(10, start);
    }
    while (nl >= 0) {
      await onLine(chunk.subarray(start, nl + 1)); // slices; copied once per message by Buffer.concat
      start = nl + 1;
      nl = chunk.indexOf(10, start);
    }
    if (start < chunk.length) {
      carry.push(chunk.subarray(start));
      carryLen += chunk.length - start;
    }
    opts.onProgress?.(read);
  }
  if (carry.length) await onLine(Buffer.concat(carry));
  // A trailing blank line is the final separator; keep none.
  heldBlank = null;
  await finish();
  return stats;
}

export class MboxTooLarge extends Error {
  constructor(line: number, max: number) {
    super(`line ${line} is longer than ${max} bytes: not an mbox file`);
  }
}
