// A pass over an RTF file's control words before LibreOffice reads it, for the counts that hang
// it (guard-limits.ts): \binN announcing more bytes than follow (LibreOffice reads N bytes one
// by one past the end: \bin2147483647 in a 3 KB file held two soffice processes for 121 s),
// \itapN, \colsN, and groups nested past any real document. Streamed: memory stays flat and
// a file is scanned at ~100 MB/s.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { ExtractionError } from '../kit/types.js';
import { ColumnTally, MAX_RTF_GROUP_DEPTH, MAX_TABLE_NESTING } from './guard-limits.js';

const OPEN = 0x7b; // {
const CLOSE = 0x7d; // }
const BACKSLASH = 0x5c;
const SPACE = 0x20;
const MINUS = 0x2d;

const isLetter = (b: number) => (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a);
const isDigit = (b: number) => b >= 0x30 && b <= 0x39;

/** Control words longer than this are not RTF (the specification's limit); their letters past it are not kept. */
const MAX_WORD = 32;

const enum State {
  Text,
  /** After a backslash. */
  Escape,
  /** Letters of a control word. */
  Word,
  /** Its numeric parameter. */
  Param,
}

/** Refuses the RTF file at `filePath` when a declared count would hang LibreOffice. */
export async function guardRtf(filePath: string): Promise<void> {
  const { size } = await stat(filePath);
  const scan = new RtfScan(size);
  for await (const chunk of createReadStream(filePath, { highWaterMark: 1 << 16 })) scan.feed(chunk as Buffer);
  scan.finish();
}

export class RtfScan {
  private state = State.Text;
  private word = '';
  private negative = false;
  private param = 0;
  private depth = 0;
  /** Bytes of \bin data still to pass over (raw bytes: no braces, no control words). */
  private binary = 0;
  /** Bytes of the file before the current chunk. */
  private consumed = 0;
  private readonly columns = new ColumnTally();

  constructor(private readonly size: number) {}

  feed(buf: Buffer): void {
    let i = 0;
    while (i < buf.length) {
      if (this.binary > 0) {
        const take = Math.min(this.binary, buf.length - i);
        this.binary -= take;
        i += take;
        continue;
      }
      const b = buf[i];
      switch (this.state) {
        case State.Text:
          if (b === OPEN) {
            if (++this.depth > MAX_RTF_GROUP_DEPTH)
              throw new ExtractionError(
                `the RTF file nests groups more than ${MAX_RTF_GROUP_DEPTH} levels deep (at byte ${this.consumed + i}); LibreOffice's time grows with the square of the depth, so deeper files are refused`,
                'document_too_complex',
              );
          } else if (b === CLOSE) {
            if (this.depth > 0) this.depth--;
          } else if (b === BACKSLASH) this.state = State.Escape;
          i++;
          break;
        case State.Escape:
          // A control symbol (\{ \} \\ \' \~ …) is one character: it is consumed here.
          if (isLetter(b)) {
            this.word = String.fromCharCode(b);
            this.negative = false;
            this.param = -1;
            this.state = State.Word;
          } else this.state = State.Text;
          i++;
          break;
        case State.Word:
          if (isLetter(b)) {
            if (this.word.length < MAX_WORD) this.word += String.fromCharCode(b);
            i++;
          } else if (b === MINUS && this.param < 0 && !this.negative) {
            this.negative = true;
            i++;
          } else if (isDigit(b)) {
            this.param = 0;
            this.state = State.Param;
          } else i = this.endWord(buf, i);
          break;
        case State.Param:
          if (isDigit(b)) {
            // Kept exact up to 2^53: far past any count LibreOffice can be asked for.
            this.param = Math.min(this.param * 10 + (b - 0x30), Number.MAX_SAFE_INTEGER);
            i++;
          } else i = this.endWord(buf, i);
          break;
      }
    }
    this.consumed += buf.length;
  }

  /** The end of the file: a control word cut off by it is checked too (\\bin5 as the last bytes). */
  finish(): void {
    if ((this.state === State.Word || this.state === State.Param) && this.param >= 0 && !this.negative) this.check(this.word, this.param, this.size);
    this.state = State.Text;
  }

  /** The control word ends at buf[i]: a space delimiter belongs to it, anything else is read again as text. */
  private endWord(buf: Buffer, i: number): number {
    const next = buf[i] === SPACE ? i + 1 : i;
    this.state = State.Text;
    if (this.param >= 0 && !this.negative) this.check(this.word, this.param, this.consumed + next);
    return next;
  }

  /** A control word with a parameter, the file's bytes after it starting at `after`. */
  private check(word: string, n: number, after: number): void {
    if (word === 'bin') {
      const left = this.size - after;
      if (n > left)
        throw new ExtractionError(
          `the RTF file is damaged: \\bin${n} at byte ${after} announces ${n} bytes of binary data, but only ${left} follow`,
          'corrupt_document',
        );
      this.binary = n;
    } else if (word === 'itap' && n > MAX_TABLE_NESTING) {
      throw new ExtractionError(
        `the RTF file nests tables ${n} levels deep (\\itap${n}); at most ${MAX_TABLE_NESTING} levels are read (LibreOffice allocates every level up front)`,
        'document_too_complex',
      );
    } else if (word === 'cols') {
      this.columns.add(n, `one section (\\cols${n})`);
    }
  }
}
