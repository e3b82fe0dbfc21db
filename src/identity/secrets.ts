// Client credentials: secrets come from a CSPRNG, are stored only as a salted scrypt hash,
// and are compared in constant time.
import { randomBytes, scrypt as scryptCb, timingSafeEqual, randomUUID } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCb) as (pw: string, salt: Buffer, keylen: number, opts: object) => Promise<Buffer>;

// N=2^14, r=8, p=1: ~15 ms per hash on this class of machine (OWASP's scrypt minimum
// is N=2^17 with r=8 for passwords; client secrets carry 256 bits of entropy, so a
// cheaper cost still makes offline guessing hopeless while keeping issuance fast).
const PARAMS = { N: 1 << 14, r: 8, p: 1 };
const KEY_LEN = 32;

export function generateClientId(): string {
  return `dp_${randomUUID().replace(/-/g, '')}`;
}

export function generateClientSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** Format: scrypt$N$r$p$salt(b64url)$hash(b64url) */
export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(secret, salt, KEY_LEN, { ...PARAMS, maxmem: 64 * 1024 * 1024 });
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, r, p, saltB64, hashB64] = parts;
  const expected = Buffer.from(hashB64, 'base64url');
  const actual = await scrypt(secret, Buffer.from(saltB64, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: 64 * 1024 * 1024,
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A hash of a random secret nobody knows: used to verify unknown client ids in equal time. */
let decoyHash: Promise<string> | null = null;
export function decoySecretHash(): Promise<string> {
  decoyHash ??= hashSecret(generateClientSecret());
  return decoyHash;
}
