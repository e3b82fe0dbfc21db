// Each row group's row count, read straight from a Parquet footer with a few lines of Thrift
// compact protocol — independent of hyparquet, which the parser uses — so the provenance
// tests check row spans against the file itself. Only FileMetaData.row_groups[].num_rows is
// kept; every other field is skipped by its wire type.
import fs from 'node:fs/promises';

class Compact {
  pos = 0;
  constructor(private readonly b: Buffer) {}

  varint(): bigint {
    let shift = 0n;
    let out = 0n;
    for (;;) {
      const byte = this.b[this.pos++];
      out |= BigInt(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return out;
      shift += 7n;
    }
  }

  zigzag(): bigint {
    const v = this.varint();
    return (v >> 1n) ^ -(v & 1n);
  }

  /** Calls `field(id, type)` for each field of a struct; `field` returns false to have it skipped. */
  struct(field: (id: number, type: number) => boolean): void {
    let last = 0;
    for (;;) {
      const head = this.b[this.pos++];
      const type = head & 0x0f;
      if (type === 0) return;
      const delta = head >> 4;
      const id = delta ? last + delta : Number(this.zigzag());
      last = id;
      if (!field(id, type)) this.skip(type);
    }
  }

  /** A list header: its size and element type. */
  list(): { size: number; type: number } {
    const head = this.b[this.pos++];
    const size = head >> 4 === 15 ? Number(this.varint()) : head >> 4;
    return { size, type: head & 0x0f };
  }

  skip(type: number, inList = false): void {
    switch (type) {
      case 1:
      case 2:
        if (inList) this.pos++; // booleans in a list take a byte; in a struct the type holds the value
        return;
      case 3:
        this.pos++;
        return;
      case 4:
      case 5:
      case 6:
        this.varint();
        return;
      case 7:
        this.pos += 8;
        return;
      case 8: {
        const length = Number(this.varint()); // read before `pos` is: `pos += varint()` would add to the old `pos`
        this.pos += length;
        return;
      }
      case 9:
      case 10: {
        const { size, type: t } = this.list();
        for (let i = 0; i < size; i++) this.skip(t, true);
        return;
      }
      case 11: {
        const size = Number(this.varint());
        if (size === 0) return;
        const kv = this.b[this.pos++];
        for (let i = 0; i < size; i++) {
          this.skip(kv >> 4, true);
          this.skip(kv & 0x0f, true);
        }
        return;
      }
      case 12:
        this.struct(() => false);
        return;
      default:
        throw new Error(`unknown Thrift compact type ${type} at byte ${this.pos}`);
    }
  }
}

/** num_rows of each row group, in order, from the footer of the Parquet file at `file`. */
export async function footerRowCounts(file: string): Promise<number[]> {
  const bytes = await fs.readFile(file);
  const footerLength = bytes.readUInt32LE(bytes.length - 8);
  const r = new Compact(bytes.subarray(bytes.length - 8 - footerLength, bytes.length - 8));
  const counts: number[] = [];
  r.struct((id, type) => {
    if (id !== 4 || type !== 9) return false; // FileMetaData.row_groups
    const { size } = r.list();
    for (let g = 0; g < size; g++) {
      r.struct((gid, gtype) => {
        if (gid !== 3 || gtype !== 6) return false; // RowGroup.num_rows
        counts.push(Number(r.zigzag()));
        return true;
      });
    }
    return true;
  });
  return counts;
}
