// A fragment: a run of characters on one baseline with no large horizontal gap, as the text
// layer (textlayer.ts) reads it and layout, OCR and Advanced build on it; and the text
// direction tests they share. Its own module so that layout and the text layer do not import
// each other.

export interface Fragment {
  text: string;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  /** Effective font size in points (font size × text matrix scale). */
  size: number;
  font: string;
  bold: boolean;
  italic: boolean;
  /** Number of non-space characters. */
  chars: number;
  /** All characters drawn with text render mode 3 (invisible), e.g. an OCR layer. */
  invisible: boolean;
  /** Characters whose Unicode mapping failed or is garbage (U+FFFD, controls, private use). */
  bad: number;
  /** Text set at an angle (e.g. rotated margin notes): kept out of the main reading flow. */
  rotated?: boolean;
  /** Characters in a bold / italic font (bold and italic are true for a majority). */
  boldChars: number;
  italicChars: number;
  /** Marked-content ID of the first character's text object (tagged PDFs), -1 when none. */
  mcid: number;
}

const RTL_ALL = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]/g;
const RTL_ANY = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]/;

/** True when the text holds any Hebrew/Arabic character (isRtl is false otherwise). */
export function hasRtlChar(text: string): boolean {
  return RTL_ANY.test(text);
}

/** True when most letters are Hebrew/Arabic. */
export function isRtl(text: string): boolean {
  const rtl = text.match(RTL_ALL)?.length ?? 0;
  return rtl > 0 && rtl * 2 >= text.replace(/[\s\d\p{P}]/gu, '').length;
}
