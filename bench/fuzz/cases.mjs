// Case generation. Case N of seed S is a pure function of (S, N, seed pool): its family is
// FAMILIES[N mod 8], and everything else (seed file, routing, mutation) comes from a PRNG
// seeded with (S, N). So `--seed S --case N` rebuilds one case without the others, and a
// family filter just skips the indices of other families.
import { Rng } from './prng.mjs';
import { FAMILIES, seedKey } from './seeds.mjs';
import { routeFor } from './routing.mjs';
import { mutate } from './mutators.mjs';

export const familyOfCase = (index) => FAMILIES[index % FAMILIES.length];

/** The first `count` case indices from `first` whose family is in `families`. */
export function caseIndices({ first = 0, count, families = FAMILIES }) {
  const out = [];
  for (let i = first; out.length < count; i++) if (families.includes(familyOfCase(i))) out.push(i);
  return out;
}

/** A splice partner: mostly the same family, sometimes any family in the pool. */
function partnerPicker(pool, family) {
  const families = Object.keys(pool);
  return (rng) => {
    const f = rng.chance(0.8) || families.length === 1 ? family : rng.pick(families);
    const s = rng.pick(pool[f] ?? pool[family]);
    return { key: seedKey(s), bytes: s.bytes };
  };
}

/**
 * Builds case `index` of run seed `seed`: {seed, index, family, seedFile, mutation, query,
 * bytes}. With `identity`, the named seed is sent unmutated (seed checks). With `seedFile`
 * (a regression's), that seed is mutated as the case's PRNG says, wherever seeds added to
 * the pool since have moved it; null when the pool has no such seed (corpus missing).
 */
export async function buildCase(seed, index, pool, { identity = null, seedFile = null } = {}) {
  const family = identity ? identity.family : familyOfCase(index);
  const seeds = pool[family];
  if (!seeds?.length) throw new Error(`no seeds for family ${family}`);
  const rng = Rng.forCase(seed, index);
  // A regression's draw is made too, so the routing and mutation that follow are the case's own.
  const drawn = identity ? null : rng.pick(seeds);
  const pinned = seedFile === null ? null : seeds.find((s) => seedKey(s) === seedFile);
  if (seedFile !== null && !pinned) return null;
  const chosen = identity ?? pinned ?? drawn;
  const query = routeFor(chosen, rng, index);
  const m = identity ? { bytes: chosen.bytes, desc: 'none (seed as is)' } : await mutate(rng, chosen, { partner: partnerPicker(pool, family) });
  return { seed, index, family, seedFile: seedKey(chosen), mutation: m.desc, query, bytes: m.bytes };
}
