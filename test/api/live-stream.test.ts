// One event stream response on its own: the framing, the heartbeat comment, and the cut of a
// client that reads nothing once 64 KiB wait unsent (the front pauses the stream then).
import { describe, expect, it } from 'vitest';
import { LiveStream } from '../../src/api/live-stream.js';
import { sleep } from '../helpers/http.js';

describe('LiveStream', () => {
  it('frames events with id, type and JSON data, sends heartbeat comments, and ends', async () => {
    let closed = 0;
    const s = new LiveStream({ heartbeatMs: 20, maxUnsentBytes: 64 * 1024, onClose: () => closed++ });
    const chunks: string[] = [];
    s.readable.on('data', (c: Buffer) => chunks.push(c.toString()));
    s.event('state', { statusInt: 3 }, 'g.3.1');
    await sleep(70);
    s.end();
    await new Promise((r) => s.readable.once('end', r));
    const text = chunks.join('');
    expect(text.startsWith('id: g.3.1\nevent: state\ndata: {"statusInt":3}\n\n')).toBe(true);
    expect(text).toContain(': heartbeat\n\n');
    expect(closed).toBe(1);
  });

  it('cuts a client that leaves more than the limit unsent, and stops its timer', async () => {
    let closed = 0;
    const s = new LiveStream({ heartbeatMs: 60_000, maxUnsentBytes: 64 * 1024, onClose: () => closed++ });
    const failed = new Promise<Error>((r) => s.readable.once('error', r));
    s.readable.pause(); // what the front does while the socket takes nothing
    const progress = { fraction: 0.5, done: 1, total: 2, pad: 'x'.repeat(1000) };
    let sent = 0;
    while (s.open && sent < 200) {
      s.event('progress', progress);
      sent++;
    }
    expect(s.open).toBe(false);
    expect(sent).toBeGreaterThan(60); // about 64 KiB of ~1 KiB events went out first
    expect((await failed).message).toMatch(/65536 bytes unsent/);
    expect(closed).toBe(1);
  });
});
