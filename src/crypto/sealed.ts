// Encryption at rest for secrets kept in the control-plane store (signing keys, tenants'
// storage credentials): AES-256-GCM under a key derived from the configured master key.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';

export class Sealer {
  private readonly key: Buffer;

  /** masterKey: the DOCPARSE_MASTER_KEY secret (any length ≥ 32 chars, high entropy). */
  constructor(private readonly masterKey: string) {
    this.key = this.deriveKey('docparse sealed v1');
  }

  /** A 32-byte key for another purpose (e.g. signing upload URLs), independent of the sealing key. */
  deriveKey(purpose: string): Buffer {
    return Buffer.from(hkdfSync('sha256', Buffer.from(this.masterKey, 'utf8'), Buffer.alloc(0), purpose, 32));
  }

  /** Returns `v1.<iv>.<ciphertext>.<tag>` (base64url parts). `context` binds the value to its use. */
  seal(plaintext: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context));
    const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64url'), ct.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
  }

  open(sealed: string, context: string): string {
    const [v, iv, ct, tag] = sealed.split('.');
    if (v !== VERSION || !iv || ct === undefined || !tag) throw new Error('sealed value is malformed');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
  }
}
