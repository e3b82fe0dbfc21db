// ZIP in and out for the fuzzer. Reading goes through JSZip (tolerant, the members in
// central-directory order); writing is our own, with a fixed DOS date, so the same members
// always give the same bytes (a replayed case must be byte-identical).
import zlib from 'node:zlib';
import JSZip from 'jszip';

const DOS_TIME = (12 << 11) | (0 << 5); // 12:00:00
const DOS_DATE = ((2024 - 1980) << 9) | (1 << 5) | 1; // 2024-01-01

export function isZip(buf) {
  return buf.length >= 4 && buf[0] === 0x50 && buf[1] === 0x4b && (buf[2] === 3 || buf[2] === 5);
}

/** The members of a ZIP as {name, data, dir}; throws when JSZip cannot read it. */
export async function unpackZip(buf) {
  const zip = await JSZip.loadAsync(buf, { checkCRC32: false });
  const out = [];
  const files = [];
  zip.forEach((name, file) => files.push([name, file]));
  for (const [name, file] of files) {
    out.push({ name, dir: file.dir, data: file.dir ? Buffer.alloc(0) : Buffer.from(await file.async('uint8array')) });
  }
  return out;
}

/**
 * Packs members ({name, data, dir?, store?}) into a ZIP. Members are deflated except
 * directories, those marked store, and ODF's `mimetype` (it must stay stored and first).
 */
export function packZip(members) {
  const locals = [];
  const centrals = [];
  let offset = 0;
  for (const m of members) {
    const name = Buffer.from(m.name, 'utf8');
    const data = m.dir ? Buffer.alloc(0) : Buffer.from(m.data);
    const stored = m.dir || m.store || m.name === 'mimetype';
    const body = stored ? data : zlib.deflateRawSync(data, { level: 6 });
    const crc = zlib.crc32(data) >>> 0;
    const method = stored ? 0 : 8;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(DOS_TIME, 10);
    local.writeUInt16LE(DOS_DATE, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, body);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(0x031e, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt16LE(DOS_TIME, 12);
    central.writeUInt16LE(DOS_DATE, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(((m.dir ? 0o40755 : 0o100644) << 16) >>> 0, 38);
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

/** packZip over {name: text|Buffer} in the given order. */
export function zipOf(entries) {
  return packZip(Object.entries(entries).map(([name, data]) => ({ name, data: Buffer.isBuffer(data) ? data : Buffer.from(data, 'utf8') })));
}
