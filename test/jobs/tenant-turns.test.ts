import { describe, expect, it } from 'vitest';
import { TenantTurns } from '../../src/jobs/tenant-turns.js';

describe('TenantTurns', () => {
  it('takes tenants in turns, each tenant in arrival order; a tenant arriving waits for one of each already queued', () => {
    const q = new TenantTurns<string>();
    for (let i = 0; i < 5; i++) q.push('a', `a${i}`);
    q.push('b', 'b0');
    q.push('b', 'b1');
    q.push('c', 'c0');
    expect(q.size).toBe(8);
    const order: string[] = [];
    for (let x = q.take(); x !== undefined; x = q.take()) order.push(x);
    expect(order).toEqual(['a0', 'b0', 'c0', 'a1', 'b1', 'a2', 'a3', 'a4']);
    expect(q.size).toBe(0);
  });

  it('skips tenants that are not eligible, keeping their place', () => {
    const q = new TenantTurns<string>();
    q.push('a', 'a0');
    q.push('a', 'a1');
    q.push('b', 'b0');
    expect(q.take((t) => t !== 'a')).toBe('b0');
    expect(q.take((t) => t !== 'a')).toBeUndefined();
    expect(q.take()).toBe('a0');
    expect(q.drain()).toEqual(['a1']);
    expect(q.size).toBe(0);
  });
});
