// The elements of one JSON array (Tabular rows, Spatial features) written a batch at a time:
// one JSON.stringify and one write into the JsonWriter per batch instead of per element. The
// bytes are the same as value() per element: JSON.stringify of an array is its elements'
// JSON joined by commas, and raw() puts the comma before the next batch.
import type { JsonWriter } from '../kit/json-writer.js';

/** Cells (about) held before a batch is written: bounds its memory, whatever the rows' width. */
const BATCH_CELLS = 8192;

export class JsonArrayBatch {
  private items: unknown[] = [];
  private cells = 0;

  constructor(private readonly content: JsonWriter) {}

  /** Adds the array's next element; `cells` is its weight (its values, about). */
  add(value: unknown, cells: number): void {
    this.items.push(value);
    this.cells += cells + 1;
    if (this.cells >= BATCH_CELLS) this.write();
  }

  /** Writes what is held (call before anything else goes to the writer, and at the end). */
  write(): void {
    if (!this.items.length) return;
    const json = JSON.stringify(this.items);
    this.content.raw(json.slice(1, -1));
    this.items = [];
    this.cells = 0;
  }
}
