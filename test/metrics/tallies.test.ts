// The in-place tallies behind /metrics: a request lands in the first bucket its latency fits
// and every bucket above it (cumulative on scrape), by the route's pattern; requests no route
// matched share one series; a format no family declares is counted as `unknown`.
import { describe, expect, it } from 'vitest';
import { LATENCY_BUCKETS, RequestTallies } from '../../src/metrics/request-tallies.js';
import { JobTallies } from '../../src/metrics/job-tallies.js';
import type { RouteDef } from '../../src/http/route.js';

const route = { method: 'GET', path: '/api/v1/documents/:documentId/status' } as RouteDef;

describe('request tallies', () => {
  it('count by route pattern and status, with cumulative buckets, +Inf, sum and count', () => {
    const t = new RequestTallies();
    t.observe(route, 200, 0.0007); // in le=0.001
    t.observe(route, 200, 0.3); // in le=0.5
    t.observe(route, 200, 42); // past the last bucket: +Inf only
    t.observe(route, 404, 0.0001);
    t.observe(undefined, 404, 0.0002);
    const rows = t.histogramRows('h');
    const bucket = (status: number, le: number | string) =>
      rows.find((r) => r.metricName === 'h_bucket' && r.labels.status === status && r.labels.le === le && r.labels.route === route.path)?.value;
    expect(bucket(200, 0.0005)).toBe(0);
    expect(bucket(200, 0.001)).toBe(1);
    expect(bucket(200, 0.25)).toBe(1);
    expect(bucket(200, 0.5)).toBe(2);
    expect(bucket(200, LATENCY_BUCKETS[LATENCY_BUCKETS.length - 1])).toBe(2);
    expect(bucket(200, '+Inf')).toBe(3);
    expect(rows.find((r) => r.metricName === 'h_sum' && r.labels.status === 200)?.value).toBeCloseTo(42.3007);
    expect(t.counterRows()).toEqual([
      { labels: { method: 'GET', route: route.path, status: 200 }, value: 3 },
      { labels: { method: 'GET', route: route.path, status: 404 }, value: 1 },
      { labels: { method: 'other', route: 'unmatched', status: 404 }, value: 1 },
    ]);
  });
});

describe('job tallies', () => {
  it('count by family and state, units and engine time by family; an unknown format as unknown', () => {
    const j = new JobTallies();
    j.job('docx', 'completed');
    j.job('xlsx', 'completed');
    j.job('pdf', 'failed');
    j.job('nope', 'queued');
    j.charged('docx', 7);
    j.charged('xlsx', 3);
    j.engineTime('pdf', 1.5);
    j.quotaRefused('job');
    const value = (rows: { labels: Record<string, string>; value: number }[], labels: Record<string, string>) =>
      rows.find((r) => Object.entries(labels).every(([k, v]) => r.labels[k] === v))?.value;
    expect(value(j.jobRows(), { family: 'office', state: 'completed' })).toBe(2);
    expect(value(j.jobRows(), { family: 'pdf', state: 'failed' })).toBe(1);
    expect(value(j.jobRows(), { family: 'unknown', state: 'queued' })).toBe(1);
    expect(value(j.jobRows(), { family: 'csv', state: 'completed' })).toBe(0);
    expect(value(j.unitRows(), { family: 'office' })).toBe(10);
    expect(value(j.engineRows(), { family: 'pdf' })).toBe(1.5);
    expect(j.quotaRows()).toEqual([
      { labels: { stage: 'upload' }, value: 0 },
      { labels: { stage: 'job' }, value: 1 },
    ]);
  });
});
