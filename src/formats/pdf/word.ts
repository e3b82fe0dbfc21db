// A word as the text layer's passes see it (table finding, block words): shared by layout.ts and
// cell-pieces.ts without either importing the other.
/** A word: characters on one baseline with no gap wider than a fraction of the font size. */
export interface Word {
  text: string;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  /** Character height (the font size, roughly). */
  size: number;
}
