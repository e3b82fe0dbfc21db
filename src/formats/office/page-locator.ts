// The page a word-processing block is on, found by locating its text in the rendered layout's
// pages, in document order. Texts are compared by their letters and digits only (spacing,
// hyphenation at line ends, quotes and list markers differ between the document and its PDF),
// and each search starts where the previous block was found, so a word repeated on many pages
// is found on the page of its own block. A block that cannot be found gets no page: it is not
// guessed from its neighbours.

/** Letters and digits of the start of a block that are looked for. */
const KEY_CHARS = 48;
/** A key this long is distinctive enough to be accepted however far ahead it is found. */
const DISTINCTIVE_CHARS = 24;
/** Shorter keys are accepted only within this many pages (with text) after the last block found. */
const NEAR_PAGES = 2;

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
  /** For each page, how many of the pages before it have text (to measure "near"). */
  private readonly textPagesBefore: number[] = [];
  private cursor = 0;
  /** Pages with no letters or digits in the layout. */
  readonly emptyPages: number[] = [];
  located = 0;
  notLocated = 0;

  constructor(pageTexts: readonly string[]) {
    let s = '';
    let withText = 0;
    pageTexts.forEach((t, i) => {
      const c = comparable(t);
      this.starts.push(s.length);
      this.textPagesBefore.push(withText);
      if (c) withText++;
      else this.emptyPages.push(i + 1);
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
    const at = this.find(key);
    if (at < 0) {
      this.notLocated++;
      return undefined;
    }
    this.located++;
    if (advance) this.cursor = at + (this.stream.startsWith(full, at) ? full.length : key.length);
    return this.pageAt(at);
  }

  private find(key: string): number {
    const at = this.stream.indexOf(key, this.cursor);
    if (at < 0 || key.length >= DISTINCTIVE_CHARS) return at;
    const from = this.pageAt(this.cursor) - 1;
    const to = this.pageAt(at) - 1;
    return this.textPagesBefore[to] - this.textPagesBefore[from] <= NEAR_PAGES ? at : -1;
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
