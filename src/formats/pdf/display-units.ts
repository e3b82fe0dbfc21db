// The unit every box is written in: display-space points rounded to hundredths. Kept in one
// place so blocks, OCR words, tables, images, links, annotations and form fields round alike.

export type BBox = [number, number, number, number];

export function r2(n: number): number {
  return Math.round(n * 100) / 100;
}
