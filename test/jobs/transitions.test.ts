import { describe, expect, it } from 'vitest';

import {
  ALL_STATES,
  assertTransition,
  canTransition,
  IllegalTransitionError,
  INITIAL_STATES,
  isTerminal,
  isUnfinished,
  legalSources,
  needsDelivery,
  TRANSITIONS,
  TRANSITIONS_MERMAID,
} from '../../src/jobs/transitions.js';

// Written out independently of the table, from the design: the table must match it exactly.
const EXPECTED: [number, number][] = [
  [0, 1],
  [0, 9],
  [1, 2],
  [1, 9],
  [2, 3],
  [2, 6],
  [2, 9],
  [6, 7],
  [6, 9],
  [3, 4],
  [3, 5],
  [3, 9],
  [7, 4],
  [7, 5],
  [7, 9],
  [4, 8],
  [4, 5],
  [4, 9],
  [5, 3],
  [5, 6],
  [5, 9],
];

describe('job transitions', () => {
  it('allows exactly the designed transitions', () => {
    const allowed = new Set(EXPECTED.map(([f, t]) => `${f}>${t}`));
    for (let from = 0; from <= 9; from++) {
      for (let to = 0; to <= 9; to++) {
        const legal = allowed.has(`${from}>${to}`);
        expect(canTransition(from, to), `${from}→${to}`).toBe(legal);
        if (legal) expect(() => assertTransition(from, to)).not.toThrow();
        else expect(() => assertTransition(from, to)).toThrow(IllegalTransitionError);
      }
    }
    expect(Object.values(TRANSITIONS).reduce((n, tos) => n + tos.length, 0)).toBe(EXPECTED.length);
  });

  it('rejects values that are not states', () => {
    for (const [f, t] of [
      [-1, 1],
      [0, 10],
      [1.5, 2],
      [Number.NaN, 1],
    ] as [number, number][]) {
      expect(canTransition(f, t)).toBe(false);
      expect(() => assertTransition(f, t)).toThrow(IllegalTransitionError);
    }
  });

  it('names the states in the error', () => {
    try {
      assertTransition(8, 3);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(IllegalTransitionError);
      expect((err as IllegalTransitionError).from).toBe(8);
      expect((err as IllegalTransitionError).to).toBe(3);
      expect((err as Error).message).toContain('completed');
      expect((err as Error).message).toContain('processing');
    }
  });

  it('classifies terminal, unfinished and deliverable states', () => {
    expect(ALL_STATES.filter(isTerminal)).toEqual([8, 9]);
    expect(ALL_STATES.filter(isUnfinished)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(ALL_STATES.filter(needsDelivery)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('every state is reachable from an initial state and every unfinished state can still finish', () => {
    const reach = (starts: readonly number[], edges: (s: number) => readonly number[]) => {
      const seen = new Set<number>(starts);
      const todo = [...starts];
      while (todo.length)
        for (const n of edges(todo.pop()!))
          if (!seen.has(n)) {
            seen.add(n);
            todo.push(n);
          }
      return seen;
    };
    expect([...reach(INITIAL_STATES, (s) => TRANSITIONS[s as 0])].sort()).toEqual([...ALL_STATES]);
    for (const s of ALL_STATES.filter(isUnfinished)) {
      const r = reach([s], (x) => TRANSITIONS[x as 0]);
      expect(r.has(8), `${s} can complete`).toBe(true);
      expect(r.has(9), `${s} can fail`).toBe(true);
    }
  });

  it('legalSources inverts the table', () => {
    for (const to of ALL_STATES) {
      expect(legalSources(to)).toEqual(
        EXPECTED.filter(([, t]) => t === to)
          .map(([f]) => f)
          .sort((a, b) => a - b),
      );
    }
  });

  it('the Mermaid diagram is generated from the table', () => {
    const lines = TRANSITIONS_MERMAID.trim()
      .split('\n')
      .map((l) => l.trim());
    expect(lines[0]).toBe('stateDiagram-v2');
    const edges = lines.filter((l) => /^s\d --> s\d$/.test(l));
    expect(edges.sort()).toEqual(EXPECTED.map(([f, t]) => `s${f} --> s${t}`).sort());
    expect(lines).toContain('[*] --> s0');
    expect(lines).toContain('s8 --> [*]');
    expect(lines).toContain('s9 --> [*]');
    expect(lines).toContain('s6: 6 waiting-for-provider');
  });
});

describe('docs/jobs.md state diagram', async () => {
  const { readFile } = await import('node:fs/promises');
  const page = await readFile(new URL('../../docs/jobs.md', import.meta.url), 'utf8').catch(() => '');
  const block = /```mermaid\n(stateDiagram-v2\n[\s\S]*?)```/.exec(page)?.[1];
  it('matches TRANSITIONS_MERMAID (docs/jobs.md draws the table the code enforces)', () => {
    expect(block).toBeDefined();
    expect(block?.trimEnd()).toBe(TRANSITIONS_MERMAID.trimEnd());
  });
});
