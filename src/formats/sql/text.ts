// UTF-8 byte offsets (as libpg-query reports them) to string offsets.

/** Maps UTF-8 byte offsets (as libpg-query reports them) to string offsets. */
export class ByteOffsets {
  private readonly ascii: boolean;
  private byteAt: Int32Array | null = null;

  constructor(private readonly text: string) {
    this.ascii = !/[^\x00-\x7f]/.test(text);
  }

  toChar(byteOffset: number): number {
    if (this.ascii) return byteOffset;
    if (!this.byteAt) this.build();
    const b = this.byteAt!;
    let lo = 0;
    let hi = b.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (b[mid] <= byteOffset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  private build(): void {
    // byteAt[i] = UTF-8 byte offset of string index i (one extra slot for the end).
    const t = this.text;
    const arr = new Int32Array(t.length + 1);
    let bytes = 0;
    for (let i = 0; i < t.length; i++) {
      arr[i] = bytes;
      const c = t.charCodeAt(i);
      if (c < 0x80) bytes += 1;
      else if (c < 0x800) bytes += 2;
      else if (c >= 0xd800 && c <= 0xdbff && i + 1 < t.length) {
        arr[i + 1] = bytes;
        bytes += 4;
        i++;
      } else bytes += 3;
    }
    arr[t.length] = bytes;
    this.byteAt = arr;
  }
}
