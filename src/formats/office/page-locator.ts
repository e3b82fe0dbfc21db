// The page a word-processing block is on, found by locating its text in the rendered layout's
// pages, in document order. Texts are compared by their letters and digits only (spacing,
// hyphenation at line ends, quotes and list markers differ between the document and its PDF),
// and each search starts where the previous block was found, so a word repeated on many pages
// is found on the page of its own block. A block that cannot be found gets no page: it is not
// guessed from its neighbours.

/** Letters and digits of the start (and end) of a block that are looked for. */
const KEY_CHARS = 48;
/** A key this long is distinctive enough to be accepted however far ahead it is found. */
const DISTINCTIVE_CHARS = 24;
/**
 * A shorter key (a table cell's "87") is accepted only this close after the last block found,
 * or this close to the top of the next page with text (after its header and repeated rows).
 */
const NEAR_CHARS = 400;
/**
 * A distinctive key is looked for this far ahead (some twenty pages): a search that finds
 * nothing reads no further, so a long document's blocks that are not in the layout cost
 * a bounded time each.
 */
const FAR_CHARS = 50_000;

/** What the comparison keeps of a text: its letters and digits, folded. */
export function comparable(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, '');
}

export class PageLocator {
  private readonly stream: string;
  /** Where each page starts in `stream`. */
  private readonly starts: number[] = [];
  private cursor = 0;
  /** Pages with no letters or digits in the layout. */
  readonly emptyPages: number[] = [];
  located = 0;
  notLocated = 0;

  constructor(pageTexts: readonly string[]) {
    let s = '';
    pageTexts.forEach((t, i) => {
      const c = comparable(t);
      this.starts.push(s.length);
      if (!c) this.emptyPages.push(i + 1);
      s += c;
    });
    this.stream = s;
  }

  get pageCount(): number {
    return this.starts.length;
  }

  /**
   * The page (from 1) where `text` starts, searching on from the last block found; undefined
   * when it holds no letters or digits or is not found. `advance` false for text laid out away
   * from the flow (a text box): it is looked for, but later blocks are not searched after it.
   */
  locate(text: string, advance = true): number | undefined {
    const full = comparable(text);
    if (!full) return undefined;
    const key = full.slice(0, KEY_CHARS);
    const distinctive = key.length >= DISTINCTIVE_CHARS;
    let at = this.ahead(key, distinctive);
    // A floating object laid out before the text it follows in the document: found a little
    // behind, without moving the search back.
    if (at < 0 && distinctive) at = this.behind(key);
    if (at < 0) {
      this.notLocated++;
      return undefined;
    }
    this.located++;
    if (advance && at >= this.cursor) this.cursor = this.endOf(full, key, at);
    return this.pageAt(at);
  }

  private ahead(key: string, distinctive: boolean): number {
    if (distinctive) return this.indexIn(key, this.cursor, this.cursor + FAR_CHARS);
    // Its first occurrence after the search position, if that is near it or near the top of
    // the next page with text (one far down this page is another cell's "87").
    const near = this.cursor + NEAR_CHARS + key.length;
    const top = this.nextPageStart(this.cursor);
    const at = this.indexIn(key, this.cursor, top < 0 ? near : Math.max(near, top + NEAR_CHARS + key.length));
    return at >= 0 && (at + key.length <= near || (top >= 0 && at >= top)) ? at : -1;
  }

  /** Starting between the start of the page before the search position and that position. */
  private behind(key: string): number {
    return this.indexIn(key, this.starts[Math.max(0, this.pageAt(this.cursor) - 2)], this.cursor + key.length - 1);
  }

  /** Where `key` first starts in stream[from, to), or -1. */
  private indexIn(key: string, from: number, to: number): number {
    const i = this.stream.slice(from, to).indexOf(key);
    return i < 0 ? -1 : from + i;
  }

  /** Where the first page with text after the one holding `at` starts, or -1. */
  private nextPageStart(at: number): number {
    for (let i = this.pageAt(at); i < this.starts.length; i++) {
      const end = i + 1 < this.starts.length ? this.starts[i + 1] : this.stream.length;
      if (end > this.starts[i]) return this.starts[i];
    }
    return -1;
  }

  /** Where the block found at `at` ends: all of it, else its last letters found soon after, else its key. */
  private endOf(full: string, key: string, at: number): number {
    if (this.stream.startsWith(full, at)) return at + full.length;
    if (full.length > key.length) {
      const tail = full.slice(-KEY_CHARS);
      const t = this.indexIn(tail, at + key.length, at + 2 * full.length);
      if (t >= 0) return t + tail.length;
    }
    return at + key.length;
  }

  /** The page (from 1) holding stream position `at`. */
  private pageAt(at: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= at) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }
}
