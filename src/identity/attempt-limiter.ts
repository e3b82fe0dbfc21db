// Limits on client-authentication attempts at the token endpoint. Each attempt takes a slot,
// atomically, before its secret is checked, in three fixed-window counters: its (client id,
// address) pair, its address and its client id. A wrong secret keeps its slot (a counted
// failure); a right one gives it back. So concurrent guesses cannot pass a limit together,
// guesses from one address cannot lock the client out at another, and a guesser spread over
// many addresses still meets the much higher per-client-id ceiling.
import { createHash } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';
import type { RateCounters, WindowLimit } from '../jobs/types.js';
import { oauthErrors } from './oauth-errors.js';

export interface FailureLimits {
  /** Failed attempts for one client id from one address per window (10). */
  perClientAndAddress: number;
  /** Failed attempts from one address, whatever the client id, per window (30). */
  perAddress: number;
  /** Failed attempts for one client id from every address together per window (100). */
  perClient: number;
  /** Fixed window length, seconds (60). */
  windowSeconds: number;
}

export const DEFAULT_FAILURE_LIMITS: FailureLimits = { perClientAndAddress: 10, perAddress: 30, perClient: 100, windowSeconds: 60 };

/** A slot held by one attempt; release() when its secret proved right (or was never checked). */
export interface AttemptSlot {
  release(): Promise<void>;
}

/** Hashed so arbitrarily long or odd client ids and forwarded addresses make short, safe keys. */
const digest = (s: string) => createHash('sha256').update(s).digest('base64url').slice(0, 22);

/**
 * The address an attempt is counted against: an IPv4 address as is (also when written as an
 * IPv4-mapped IPv6 address), an IPv6 address by its /64, which one host can rotate through
 * at will.
 */
export function addressBucket(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped && isIPv4(mapped[1])) return mapped[1];
  if (!isIPv6(address)) return address;
  const [head, tail = ''] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = address.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

export class AttemptLimiter {
  constructor(
    private readonly counters: RateCounters,
    readonly limits: FailureLimits,
    private readonly now: () => number,
  ) {}

  /**
   * Takes this attempt's slot, or throws OAuthError 429 invalid_client (Retry-After: the end
   * of the window) when the pair, the address or the client id has no room left. A throttled
   * pair is refused whatever the secret, so the limit is no guessing oracle.
   */
  async reserve(clientId: string, remoteAddress: string): Promise<AttemptSlot> {
    const { windowSeconds, perClientAndAddress, perAddress, perClient } = this.limits;
    const client = digest(clientId);
    const address = digest(addressBucket(remoteAddress));
    const slots: WindowLimit[] = [
      { key: `identity:fail:pair:${client}:${address}`, limit: perClientAndAddress },
      { key: `identity:fail:addr:${address}`, limit: perAddress },
      { key: `identity:fail:client:${client}`, limit: perClient },
    ];
    const r = await this.counters.reserveInWindow(slots, windowSeconds);
    if (!r.taken) throw oauthErrors.tooManyFailures(this.retryAfter());
    const keys = slots.map((s) => s.key);
    return { release: () => this.counters.releaseInWindow(keys, windowSeconds, r.window) };
  }

  /** Seconds until the current fixed window ends (windows are aligned to the epoch). */
  private retryAfter(): number {
    const w = this.limits.windowSeconds;
    return w - (Math.floor(this.now() / 1000) % w);
  }
}
