// A ZIP written byte by byte, so tests control every header — including ones that lie about
// sizes (the archive guard's tests) and Unix modes (symlinks).
import zlib from 'node:zlib';

export interface ZipMember {
  name: string;
  data: Buffer;
  deflate?: boolean;
  /** `data` already deflated (to build many identical members quickly); implies deflate. */
  deflated?: Buffer;
  /** Uncompressed size written in the local and central headers (default: the truth). */
  declared?: number;
  /** Unix mode to store in the external attributes (e.g. 0o120777 for a symlink). */
  mode?: number;
}

export function makeZip(members: ZipMember[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const m of members) {
    const name = Buffer.from(m.name, 'utf8');
    const deflate = m.deflate || m.deflated !== undefined;
    const body = m.deflated ?? (deflate ? zlib.deflateRawSync(m.data) : m.data);
    const crc = zlib.crc32(m.data);
    const method = deflate ? 8 : 0;
    const declared = m.declared ?? m.data.length;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc >>> 0, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(declared, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, body);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(0x031e, 4); // made by: Unix
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc >>> 0, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(declared, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(((m.mode ?? 0o100644) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(members.length, 8);
  end.writeUInt16LE(members.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}
