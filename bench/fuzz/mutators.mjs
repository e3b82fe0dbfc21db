// Byte-level mutations of a seed (bit flips, truncation, splices, duplicated ranges, zeroed
// headers, appended garbage, boundary integers) and, for ZIP-based seeds, a re-pack with one
// member mutated so the damage reaches past the ZIP layer. Each returns {bytes, desc}; the
// desc says exactly what was done, for the report.
import { isZip, packZip, unpackZip } from './zip.mjs';

const EDGE = 4096;

/** A position biased to the first and last 4 KiB, where headers, footers and directories live. */
function position(rng, len) {
  if (len <= 1) return 0;
  const where = rng.int(3);
  if (where === 0) return rng.int(Math.min(len, EDGE));
  if (where === 1) return len - 1 - rng.int(Math.min(len, EDGE));
  return rng.int(len);
}

function bitflip(rng, buf) {
  const out = Buffer.from(buf);
  const n = 1 + Math.floor(rng.next() ** 3 * 64);
  const at = [];
  for (let i = 0; i < n; i++) {
    const p = position(rng, out.length);
    out[p] ^= 1 << rng.int(8);
    at.push(p);
  }
  return { bytes: out, desc: `bitflip x${n} @${at.slice(0, 6).join(',')}${n > 6 ? ',…' : ''}` };
}

function truncate(rng, buf) {
  const keep = rng.chance(0.5) ? buf.length - 1 - rng.int(Math.min(buf.length, EDGE)) : rng.int(buf.length);
  return { bytes: Buffer.from(buf.subarray(0, keep)), desc: `truncate to ${keep}/${buf.length}` };
}

function splice(rng, buf, ctx) {
  const partner = ctx.partner(rng);
  const i = rng.int(buf.length + 1);
  const j = rng.int(partner.bytes.length + 1);
  return { bytes: Buffer.concat([buf.subarray(0, i), partner.bytes.subarray(j)]), desc: `splice [0,${i}) + ${partner.key}[${j},end)` };
}

function duplicate(rng, buf) {
  const start = position(rng, buf.length);
  const len = Math.min(buf.length - start, rng.logInt(Math.max(1, Math.min(buf.length, 8192))));
  const copies = 1 + Math.floor(rng.next() ** 2 * 4);
  const at = rng.chance(0.5) ? start + len : rng.int(buf.length + 1);
  const range = buf.subarray(start, start + len);
  const bytes = Buffer.concat([buf.subarray(0, at), ...Array(copies).fill(range), buf.subarray(at)]);
  return { bytes, desc: `duplicate [${start},+${len}) x${copies} at ${at}` };
}

function zeroHeader(rng, buf) {
  const n = Math.min(buf.length, rng.pick([4, 8, 16, 64, 128, 512]));
  const out = Buffer.from(buf);
  out.fill(0, 0, n);
  return { bytes: out, desc: `zero header [0,${n})` };
}

function appendGarbage(rng, buf) {
  const n = rng.logInt(65536);
  const kind = rng.weighted({ random: 3, text: 1, repeat: 1 });
  let tail;
  if (kind === 'random') tail = rng.bytes(n);
  else if (kind === 'text')
    tail = Buffer.from(
      Array.from({ length: n }, () => rng.pick(['a', ',', ';', '"', '\n', '\r', ' ', '<', '>', '{', '}', '0', '\\', '\t'])).join(''),
      'latin1',
    );
  else tail = Buffer.alloc(n, rng.pick([0x00, 0xff, 0x41]));
  return { bytes: Buffer.concat([buf, tail]), desc: `append ${n} bytes of ${kind}` };
}

const EDGE_VALUES = [0, 1, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff];

function interesting(rng, buf) {
  const out = Buffer.from(buf);
  const n = 1 + rng.int(4);
  const done = [];
  for (let i = 0; i < n; i++) {
    const width = rng.pick([1, 2, 4]);
    if (out.length < width) break;
    const p = Math.min(position(rng, out.length), out.length - width);
    const v = rng.chance(0.15) ? out.length : rng.pick(EDGE_VALUES);
    const masked = width === 4 ? v >>> 0 : v & (width === 2 ? 0xffff : 0xff);
    const le = rng.chance(0.75);
    if (width === 1) out.writeUInt8(masked, p);
    else if (width === 2) le ? out.writeUInt16LE(masked, p) : out.writeUInt16BE(masked, p);
    else le ? out.writeUInt32LE(masked, p) : out.writeUInt32BE(masked, p);
    done.push(`${p}:${width}${le ? 'le' : 'be'}=0x${masked.toString(16)}`);
  }
  return { bytes: out, desc: `edge ints ${done.join(',')}` };
}

export const BYTE_MUTATORS = { bitflip, truncate, splice, duplicate, zeroHeader, appendGarbage, interesting };
const BYTE_WEIGHTS = { bitflip: 22, truncate: 14, splice: 14, duplicate: 18, zeroHeader: 8, appendGarbage: 10, interesting: 14 };

function mutateBytes(rng, buf, ctx) {
  const name = buf.length === 0 ? 'appendGarbage' : rng.weighted(BYTE_WEIGHTS);
  return BYTE_MUTATORS[name](rng, buf, ctx);
}

/** Unpacks, mutates one member (often the largest: usually the main part), re-packs. */
async function zipMember(rng, buf, ctx) {
  let members;
  try {
    members = await unpackZip(buf);
  } catch {
    members = null;
  }
  const files = members?.filter((m) => !m.dir) ?? [];
  if (!files.length) {
    const r = mutateBytes(rng, buf, ctx);
    return { bytes: r.bytes, desc: `zip unreadable: ${r.desc}` };
  }
  const largest = files.reduce((a, b) => (b.data.length > a.data.length ? b : a));
  const target = rng.chance(0.35) ? largest : rng.pick(files);
  const r = mutateBytes(rng, target.data, ctx);
  const repacked = packZip(members.map((m) => (m === target ? { ...m, data: r.bytes } : m)));
  return { bytes: repacked, desc: `zip member ${target.name}: ${r.desc}` };
}

/** Mutates a seed: ZIP-based seeds get a member mutation 45 % of the time. */
export async function mutate(rng, seed, ctx) {
  if (isZip(seed.bytes) && rng.chance(0.45)) return zipMember(rng, seed.bytes, ctx);
  return mutateBytes(rng, seed.bytes, ctx);
}
