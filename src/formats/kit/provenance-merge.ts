// Joining provenances, for what spans several blocks (a chunk): one entry per place (page,
// sheet, slide, attachment), with the boxes, ranges and spans of its blocks joined.
import { unionBox, type Provenance } from './provenance.js';

/** The fields that are an extent inside a place rather than the place itself. */
const EXTENTS = ['box', 'range', 'lines', 'offsets', 'rows'] as const;

/** Adds `p` to `list`: joined into the entry for the same place, or appended. */
export function mergeProvenance(list: Provenance[], p: Provenance): void {
  const key = placeKey(p);
  const same = list.find((q) => placeKey(q) === key);
  if (!same) {
    list.push(structuredClone(p));
    return;
  }
  if (same.box && p.box) same.box = unionBox(same.box, p.box);
  if (same.range && p.range) same.range = unionRange(same.range, p.range);
  for (const span of ['lines', 'offsets', 'rows'] as const) {
    const a = same[span];
    const b = p[span];
    if (a && b) same[span] = [Math.min(a[0], b[0]), Math.max(a[1], b[1])];
  }
}

function placeKey(p: Provenance): string {
  const place: Record<string, unknown> = { ...p };
  for (const k of EXTENTS) delete place[k];
  return JSON.stringify(place, Object.keys(place).sort());
}

/** The smallest A1 range holding both ("A1:B2" and "C5" → "A1:C5"). */
export function unionRange(a: string, b: string): string {
  const [a0, a1] = corners(a);
  const [b0, b1] = corners(b);
  if (!a0 || !b0) return a;
  const top = { col: Math.min(a0.col, b0.col), row: Math.min(a0.row, b0.row) };
  const bottom = { col: Math.max(a1.col, b1.col), row: Math.max(a1.row, b1.row) };
  const first = cellName(top.col, top.row);
  const last = cellName(bottom.col, bottom.row);
  return first === last ? first : `${first}:${last}`;
}

function corners(range: string): [{ col: number; row: number } | null, { col: number; row: number }] {
  const [from, to = from] = range.split(':');
  const f = cell(from);
  const t = cell(to);
  return f && t ? [f, t] : [null, { col: 0, row: 0 }];
}

function cell(name: string): { col: number; row: number } | null {
  const m = /^([A-Z]+)(\d+)$/.exec(name);
  if (!m) return null;
  let col = 0;
  for (const ch of m[1]) col = col * 26 + (ch.charCodeAt(0) - 64);
  return { col, row: Number(m[2]) };
}

/** "A1" from a column (1 = A) and a row (from 1). */
export function cellName(col: number, row: number): string {
  let letters = '';
  for (let c = col; c > 0; c = Math.floor((c - 1) / 26)) letters = String.fromCharCode(65 + ((c - 1) % 26)) + letters;
  return `${letters}${row}`;
}
