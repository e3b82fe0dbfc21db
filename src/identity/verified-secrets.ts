// Client secrets this node has already proven right, so a client that asks for a token again
// pays a keyed hash (microseconds) instead of scrypt (tens of milliseconds of CPU). What is
// kept is an HMAC of the secret under a key made at start and never stored, bound to the
// exact stored hash it was checked against: a rotated secret (a new stored hash) or any other
// secret misses and goes through scrypt as before, so a guess costs what it always did; only
// the right secret, a second time, is fast — and the answer says it was right anyway.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export class VerifiedSecrets {
  private readonly key = randomBytes(32);
  /** Client id → the stored hash the secret was checked against, and the secret's HMAC (least recently used first). */
  private readonly proven = new Map<string, { secretHash: string; mac: Buffer }>();

  constructor(private readonly max = 10_000) {}

  /** Whether this secret was proven right before against exactly this stored hash. */
  has(clientId: string, secretHash: string, secret: string): boolean {
    const p = this.proven.get(clientId);
    if (!p || p.secretHash !== secretHash) return false;
    if (!timingSafeEqual(p.mac, this.mac(secret))) return false;
    this.proven.delete(clientId);
    this.proven.set(clientId, p);
    return true;
  }

  /** Records a secret scrypt found right against the stored hash. */
  add(clientId: string, secretHash: string, secret: string): void {
    this.proven.delete(clientId);
    this.proven.set(clientId, { secretHash, mac: this.mac(secret) });
    if (this.proven.size > this.max) this.proven.delete(this.proven.keys().next().value!);
  }

  private mac(secret: string): Buffer {
    return createHmac('sha256', this.key).update(secret).digest();
  }
}
