// The text layer's per-character pass, in WASM (wasm/charpass/charpass.ts, built into
// dist/wasm/charpass.wasm): one instance per PDFium instance, importing its memory and
// text-page functions, so reading a page's characters costs no JavaScript per character.
// This module owns the instance and its scratch memory (malloc'd in PDFium's heap) and hands
// back the page's fragments as typed-array views plus the page's text; textlayer.ts turns
// them into Fragment objects.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Pdfium } from './pdfium-loader.js';

// lib ES2023 has no WebAssembly typings: the few members used here.
interface WasmGlobal {
  value: number;
}
interface CharPassExports {
  readChars(
    tp: number,
    n: number,
    rotation: number,
    l: number,
    b: number,
    r: number,
    t: number,
    width: number,
    dominant: number,
    rect: number,
    scratch: number,
    frags: number,
    text: number,
    counts: number,
  ): number;
  scratchBytes(n: number): number;
  dominantAngle(tp: number, n: number, work: number): number;
  FRAG_BYTES: WasmGlobal;
  FLAG_INVISIBLE: WasmGlobal;
  FLAG_ROTATED: WasmGlobal;
  FLAG_RTL_CANDIDATE: WasmGlobal;
  TEXT_UNITS_PER_CHAR: WasmGlobal;
  layoutSingleColumn(frags: number, count: number, text: number, textUnits: number, work: number): number;
  layoutBytes(count: number, textUnits: number): number;
  BLOCK_BYTES: WasmGlobal;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (m: object, imports: object) => { exports: unknown };
}
const WA = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** Fragment record layout (FRAG_BYTES each): f64 at these indices of the record's 10 … */
export const F64 = { x0: 0, y0: 1, x1: 2, y1: 3, size: 4 } as const;
/** … and i32 at these indices of its 20. */
export const I32 = { font: 10, chars: 11, bad: 12, boldChars: 13, italicChars: 14, mcid: 15, flags: 16, textStart: 17, textEnd: 18 } as const;

export interface CharPassResult {
  fragments: number;
  /** Views of the fragment records (valid until the next pass on this thread). */
  f64: Float64Array;
  i32: Int32Array;
  /** Record size in f64 / i32 slots. */
  f64Stride: number;
  i32Stride: number;
  /** The fragments' text, untrimmed: fragment k is text.slice(textStart, textEnd). */
  text: string;
  flags: { invisible: number; rotated: number; rtlCandidate: number };
  charCount: number;
  badChars: number;
  invisibleChars: number;
  verticalPairs: number;
  duplicates: number;
  /** Where the records and text lie in PDFium's memory, for layOutSingleColumn. */
  at: { frags: number; text: number; textUnits: number };
}

/** Block record layout (BLOCK_BYTES each): f64 at these indices of the record's 9 … */
export const BLOCK_F64 = { x0: 0, y0: 1, x1: 2, y1: 3, size: 4 } as const;
/** … and i32 at these indices of its 18. */
export const BLOCK_I32 = { font: 10, bold: 11, italic: 12, chars: 13, lineCount: 14, markerLength: 15, textStart: 16, textEnd: 17 } as const;

export interface SingleColumnLayout {
  blocks: number;
  /** Views of the block records (valid until the next layout on this thread). */
  f64: Float64Array;
  i32: Int32Array;
  f64Stride: number;
  i32Stride: number;
  /** The blocks' text: block k is text.slice(textStart, textEnd). */
  text: string;
}

/** Names a font handle for the pass: (font index << 2) | bold | italic << 1. */
export type FontNamer = (fontHandle: number) => number;

/** A block malloc'd in PDFium's heap (ptr 0: none), reused while large enough. */
interface HeapBlock {
  ptr: number;
  bytes: number;
}

interface Pass {
  ex: CharPassExports;
  /** readChars' scratch, fragment records and text. */
  scratch: HeapBlock;
  /** layoutSingleColumn's work memory (a block of its own: its size follows the fragment count). */
  work: HeapBlock;
  namer: FontNamer | null;
}

/** Makes `b` at least `need` bytes (its contents are not kept); `what` names the need in the error. */
function grow(p: Pdfium, b: HeapBlock, need: number, what: string): void {
  if (b.bytes >= need) return;
  release(p, b);
  const ptr = p.ex.malloc(need);
  if (!ptr) throw new Error(`out of memory for ${what}`);
  b.ptr = ptr;
  b.bytes = need;
}

/** Frees `b` when it holds more than `keep` bytes. */
function release(p: Pdfium, b: HeapBlock, keep = 0): void {
  if (!b.ptr || b.bytes <= keep) return;
  p.ex.free(b.ptr);
  b.ptr = 0;
  b.bytes = 0;
}

/** Scratch kept between pages for up to this many characters; a larger page's is freed after it. */
const KEEP_CHARS = 1 << 16;
/** Layout work memory kept between pages up to this size; a larger one is freed after its page. */
const KEEP_WORK_BYTES = 4 << 20;
/** Largest page the WASM layout takes (its work memory stays far below 2 GiB). */
const MAX_WASM_LAYOUT_RUNS = 4_000_000;
const MAX_WASM_LAYOUT_UNITS = 100_000_000;

let compiled: object | null = null;
const passes = new WeakMap<Pdfium, Pass>();

function charPassModule(): object {
  if (compiled) return compiled;
  // src/formats/pdf and dist/formats/pdf both sit two levels under the project root.
  const file = fileURLToPath(new URL('../../../dist/wasm/charpass.wasm', import.meta.url));
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (e) {
    throw new Error(`the PDF text-layer module is missing (${file}: ${(e as Error).message}); npm run build makes it`, { cause: e });
  }
  return (compiled = new WA.Module(bytes));
}

function passFor(p: Pdfium): Pass {
  let pass = passes.get(p);
  if (pass) return pass;
  const made: Pass = { ex: null as unknown as CharPassExports, scratch: { ptr: 0, bytes: 0 }, work: { ptr: 0, bytes: 0 }, namer: null };
  const instance = new WA.Instance(charPassModule(), {
    env: { memory: p.ex.memory },
    pdfium: p.ex,
    js: { fontInfo: (fh: number) => made.namer!(fh) },
  });
  made.ex = instance.exports as CharPassExports;
  passes.set(p, (pass = made));
  return pass;
}

/** The dominant text direction of text page `tp` (n characters), in degrees: a multiple of 15. */
export function dominantAngle(p: Pdfium, tp: number, n: number): number {
  const pass = passFor(p);
  return pass.ex.dominantAngle(tp, n, reserve(p, pass, n).scratch);
}

interface ScratchLayout {
  counts: number;
  scratch: number;
  frags: number;
  text: number;
  end: number;
}

/** Scratch for a page of n characters from `base`: counts, then readChars' scratch, fragments and text. */
function layout(ex: CharPassExports, base: number, n: number): ScratchLayout {
  const counts = base;
  const scratch = counts + 32;
  const frags = scratch + ((ex.scratchBytes(n) + 7) & ~7);
  const text = frags + n * ex.FRAG_BYTES.value;
  return { counts, scratch, frags, text, end: text + n * ex.TEXT_UNITS_PER_CHAR.value * 2 };
}

/** Makes pass.scratch large enough for a page of n characters (≥ 256 bytes); returns its layout. */
function reserve(p: Pdfium, pass: Pass, n: number): ScratchLayout {
  grow(p, pass.scratch, Math.max(256, layout(pass.ex, 0, n).end), `the text of a page with ${n} characters`);
  return layout(pass.ex, pass.scratch.ptr, n);
}

/**
 * Reads the `n` characters of text page `tp` into fragments, in the frame `frame` (rotation,
 * page box, width) with the page's dominant text angle in degrees. `rect` is ≥ 24 bytes of
 * scratch in PDFium's heap.
 */
export function runCharPass(
  p: Pdfium,
  tp: number,
  n: number,
  frame: { rotation: number; box: [number, number, number, number]; width: number },
  dominant: number,
  rect: number,
  namer: FontNamer,
): CharPassResult {
  const pass = passFor(p);
  const { ex } = pass;
  const fragBytes = ex.FRAG_BYTES.value;
  const { counts, scratch, frags, text } = reserve(p, pass, n);
  const [L, B, R, T] = frame.box;
  pass.namer = namer;
  let count: number;
  try {
    count = ex.readChars(tp, n, frame.rotation, L, B, R, T, frame.width, dominant, rect, scratch, frags, text, counts);
  } finally {
    pass.namer = null;
  }
  // Views made after the pass: naming a font may have grown the heap (and detached old views).
  const buffer = (p.ex.memory as { buffer: ArrayBuffer }).buffer;
  const c = new Int32Array(buffer, counts, 6);
  const result: CharPassResult = {
    fragments: count,
    f64: new Float64Array(buffer, frags, (count * fragBytes) / 8),
    i32: new Int32Array(buffer, frags, (count * fragBytes) / 4),
    f64Stride: fragBytes / 8,
    i32Stride: fragBytes / 4,
    text: c[5] ? Buffer.from(buffer, text, c[5] * 2).toString('utf16le') : '',
    flags: { invisible: ex.FLAG_INVISIBLE.value, rotated: ex.FLAG_ROTATED.value, rtlCandidate: ex.FLAG_RTL_CANDIDATE.value },
    charCount: c[0],
    badChars: c[1],
    invisibleChars: c[2],
    verticalPairs: c[3],
    duplicates: c[4],
    at: { frags, text, textUnits: c[5] },
  };
  return result;
}

/**
 * SingleColumn layout of the fragments of the last pass on this thread, in WASM (the same
 * blocks as layout.ts's regionBlocks(regionLines(upright fragments))): null when the page
 * needs the JavaScript layout (see wasm/charpass/layout.ts).
 */
export function layOutSingleColumn(p: Pdfium, r: CharPassResult): SingleColumnLayout | null {
  // The module sizes its work memory in 32-bit arithmetic (≈ 210 bytes a run and 4 a text
  // unit): a page beyond these bounds, far past any real one, is laid out in JavaScript.
  if (r.fragments > MAX_WASM_LAYOUT_RUNS || r.at.textUnits > MAX_WASM_LAYOUT_UNITS) return null;
  const pass = passFor(p);
  const { ex } = pass;
  grow(p, pass.work, Math.max(256, ex.layoutBytes(r.fragments, r.at.textUnits)), `the layout of a page with ${r.fragments} text runs`);
  const work = pass.work.ptr;
  const buffer = (p.ex.memory as { buffer: ArrayBuffer }).buffer;
  // The malloc above may have grown the heap, detaching the pass's views: make them again.
  if (r.f64.buffer !== buffer) {
    r.f64 = new Float64Array(buffer, r.at.frags, r.fragments * r.f64Stride);
    r.i32 = new Int32Array(buffer, r.at.frags, r.fragments * r.i32Stride);
  }
  const count = ex.layoutSingleColumn(r.at.frags, r.fragments, r.at.text, r.at.textUnits, work);
  if (count < 0) return null;
  const blockBytes = ex.BLOCK_BYTES.value;
  const units = new Int32Array(buffer, work, 2)[1];
  // Header (16 bytes), the records, then their text.
  const records = work + 16;
  return {
    blocks: count,
    f64: new Float64Array(buffer, records, (count * blockBytes) / 8),
    i32: new Int32Array(buffer, records, (count * blockBytes) / 4),
    f64Stride: blockBytes / 8,
    i32Stride: blockBytes / 4,
    text: units ? Buffer.from(buffer, records + r.fragments * blockBytes, units * 2).toString('utf16le') : '',
  };
}

/** After a page with very many characters: frees the scratch and layout memory grown for it (call once its results are read). */
export function releaseLargeScratch(p: Pdfium): void {
  const pass = passes.get(p);
  if (!pass) return;
  release(p, pass.work, KEEP_WORK_BYTES);
  release(p, pass.scratch, layout(pass.ex, 0, KEEP_CHARS).end);
}
