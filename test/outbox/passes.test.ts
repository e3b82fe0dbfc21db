import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { retryDelayMs, startPassLoop } from '../../src/outbox/passes.js';

function capturedLogger() {
  const lines: { msg: string; err?: string }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()));
      done();
    },
  });
  return { logger: pino(stream), lines };
}

const until = async (cond: () => boolean) => {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(cond()).toBe(true);
};

describe('outbox pass loop', () => {
  it('runs a pass at once, and one more right after a pass when nudged during it (never two at a time)', async () => {
    const { logger } = capturedLogger();
    let passes = 0;
    let concurrent = 0;
    let most = 0;
    let release: () => void = () => {};
    const loop = startPassLoop({
      logger,
      failure: 'pass failed',
      nextWakeMs: () => 60_000,
      pass: async () => {
        passes++;
        most = Math.max(most, ++concurrent);
        if (passes === 1) await new Promise<void>((r) => (release = r));
        concurrent--;
      },
    });
    await until(() => passes === 1);
    loop.nudge();
    loop.nudge();
    await new Promise((r) => setTimeout(r, 20));
    expect(passes).toBe(1);
    release();
    await until(() => passes === 2);
    await new Promise((r) => setTimeout(r, 20));
    expect(passes).toBe(2);
    expect(most).toBe(1);
    await loop.stop();
  });

  it('logs a failing pass once per distinct problem and keeps trying; stop() waits for the pass under way', async () => {
    const { logger, lines } = capturedLogger();
    let passes = 0;
    let sawStop = false;
    const loop = startPassLoop({
      logger,
      failure: 'outbox pass failed; retrying',
      nextWakeMs: () => 1,
      pass: async (stopped) => {
        passes++;
        if (passes <= 5) throw new Error('control plane away');
        if (passes === 6) throw new Error('another problem');
        await new Promise((r) => setTimeout(r, 10));
        if (stopped()) sawStop = true;
      },
    });
    await until(() => passes >= 7);
    await loop.stop();
    const warned = lines.filter((l) => l.msg === 'outbox pass failed; retrying').map((l) => l.err);
    expect(warned).toEqual(['control plane away', 'another problem']);
    expect(sawStop).toBe(true);
    const after = passes;
    await new Promise((r) => setTimeout(r, 30));
    expect(passes).toBe(after);
  });

  it('backs off exponentially up to the ceiling, ±20 %', () => {
    const policy = { baseMs: 1000, maxMs: 10_000 };
    expect(retryDelayMs(1, policy, () => 0.5)).toBe(1000);
    expect(retryDelayMs(3, policy, () => 0.5)).toBe(4000);
    expect(retryDelayMs(10, policy, () => 0.5)).toBe(10_000);
    expect(retryDelayMs(2, policy, () => 0)).toBe(1600);
    expect(retryDelayMs(2, policy, () => 1)).toBe(2400);
  });
});
