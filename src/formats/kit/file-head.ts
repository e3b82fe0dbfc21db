// The first bytes of an input file, for the format checks parsers make before committing to
// an engine (magic numbers, text sniffing, encodings).
import { open } from 'node:fs/promises';

/** Up to `n` bytes from the start of the file (fewer when the file is shorter). */
export async function readFileHead(file: string, n: number): Promise<Buffer> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(n);
    const { bytesRead } = await fh.read(buf, 0, n, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/** A ZIP local-file header or an empty archive's end record. */
export function isZipHead(head: Buffer): boolean {
  return head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && (head[2] === 0x03 || head[2] === 0x05) && (head[3] === 0x04 || head[3] === 0x06);
}
