// A small seeded PRNG (mulberry32) and the helpers the fuzzer draws with. Every case gets its
// own generator from (seed, case index), so one case can be rebuilt without the others.

/** mulberry32: 32-bit state, good enough for fuzzing and identical on every platform. */
export function mulberry32(state) {
  let a = state >>> 0;
  return function next() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Mixes the run seed and the case index into one 32-bit state (splitmix-style avalanche). */
export function caseState(seed, index) {
  let h = (Math.imul(seed >>> 0, 0x9e3779b1) ^ Math.imul(index >>> 0, 0x85ebca77)) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d) >>> 0;
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b) >>> 0;
  h ^= h >>> 16;
  return h >>> 0;
}

/** The drawing helpers over one generator. */
export class Rng {
  constructor(state) {
    this.next = mulberry32(state);
  }

  static forCase(seed, index) {
    return new Rng(caseState(seed, index));
  }

  /** Integer in [0, n). */
  int(n) {
    return n <= 0 ? 0 : Math.floor(this.next() * n);
  }

  /** Integer in [lo, hi] (inclusive). */
  range(lo, hi) {
    return lo + this.int(hi - lo + 1);
  }

  chance(p) {
    return this.next() < p;
  }

  pick(list) {
    return list[this.int(list.length)];
  }

  /** Picks a key of {key: weight}. */
  weighted(weights) {
    const entries = Object.entries(weights).filter(([, w]) => w > 0);
    let r = this.next() * entries.reduce((s, [, w]) => s + w, 0);
    for (const [k, w] of entries) {
      r -= w;
      if (r < 0) return k;
    }
    return entries[entries.length - 1][0];
  }

  /** Log-uniform integer in [1, max]: small sizes as often as large ones. */
  logInt(max) {
    return Math.max(1, Math.min(max, Math.floor(Math.exp(this.next() * Math.log(max + 1)))));
  }

  bytes(n) {
    const b = Buffer.allocUnsafe(n);
    for (let i = 0; i < n; i++) b[i] = this.int(256);
    return b;
  }
}
