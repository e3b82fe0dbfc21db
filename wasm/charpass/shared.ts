// AssemblyScript: what the character pass (charpass.ts) and the SingleColumn layout
// (layout.ts) share — the fragment record and the character classes both test.

/** Fragment record: x0, y0, x1, y1, size (f64), then font, chars, bad, boldChars, italicChars, mcid, flags, textStart, textEnd (i32). */
export const FRAG_BYTES: i32 = 80;
export const FRAG_X0 = 0, FRAG_Y0 = 8, FRAG_X1 = 16, FRAG_Y1 = 24, FRAG_SIZE = 32;
export const FRAG_FONT = 40, FRAG_CHARS = 44, FRAG_BAD = 48, FRAG_BOLD = 52, FRAG_ITALIC = 56, FRAG_MCID = 60, FRAG_FLAGS = 64, FRAG_TEXT_START = 68, FRAG_TEXT_END = 72;

export const FLAG_INVISIBLE: i32 = 1;
export const FLAG_ROTATED: i32 = 2;
/** Holds a Hebrew/Arabic character and was laid out rightwards: the caller checks isRtl. */
export const FLAG_RTL_CANDIDATE: i32 = 4;

export function isRtlCode(u: i32): bool {
  return (u >= 0x590 && u <= 0x8ff) || (u >= 0xfb1d && u <= 0xfdff) || (u >= 0xfe70 && u <= 0xfeff);
}

/** List bullets and dashes (the first alternative of layout.ts's LIST_MARKER). */
export function isBullet(c: i32): bool {
  switch (c) {
    case 0x2022: case 0x25e6: case 0x25aa: case 0x25ab: case 0x25cf: case 0x25cb: case 0x25a0:
    case 0x25a1: case 0x25ba: case 0x25b8: case 0x2023: case 0x2043: case 0x2219: case 0xb7:
    case 0x2d: case 0x2013: case 0x2014: case 0x2a:
      return true;
  }
  return false;
}

/** JavaScript's white space and line terminators (what \s and trim() match). */
export function isJsSpace(c: i32): bool {
  return (c >= 9 && c <= 13) || c == 0x20 || c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000 || c == 0xfeff;
}

/** JavaScript's Math.round (halves toward +∞). */
export function jsRound(x: f64): f64 {
  const f = Math.floor(x);
  return x - f >= 0.5 ? f + 1 : f;
}

/** The UTF-16 unit k of the text at `base`. */
@inline export function unitAt(base: usize, k: i32): i32 {
  return <i32>load<u16>(base + (<usize>k << 1));
}

/** Where base[a…b) starts once leading white space (isJsSpace) is dropped, as trimStart() would. */
export function trimmedStart(base: usize, a: i32, b: i32): i32 {
  while (a < b && isJsSpace(unitAt(base, a))) a++;
  return a;
}

/** Where base[a…b) ends once trailing white space is dropped, as trimEnd() would. */
export function trimmedEnd(base: usize, a: i32, b: i32): i32 {
  while (b > a && isJsSpace(unitAt(base, b - 1))) b--;
  return b;
}
