// DOCPARSE_REGION_URLS and the forwarding settings: read at boot; a table that leaves this
// node's region (or a license region apps may be given) without a place stops the node, naming
// the variable and the code.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) return e.problems;
    throw e;
  }
  return [];
}

describe('DOCPARSE_REGION_URLS', () => {
  it('is unset by default: one region, no forwarding, a 30 s timeout', () => {
    const c = loadConfig({});
    expect(c.regionUrls).toBeNull();
    expect(c.regionForwarding).toBe(false);
    expect(c.regionForwardTimeoutSeconds).toBe(30);
  });

  it('reads code=url pairs; this node and the license regions sit in them by prefix', () => {
    const c = loadConfig({
      DOCPARSE_REGION: 'eu-central-1',
      DOCPARSE_REGIONS: 'eu-central-1,us-east-1',
      DOCPARSE_REGION_URLS: ' eu=https://eu.example/ , US=https://us.example',
      DOCPARSE_REGION_FORWARDING: 'true',
      DOCPARSE_REGION_FORWARD_TIMEOUT_SECONDS: '5',
    });
    expect(c.regionUrls).toEqual({ eu: 'https://eu.example', us: 'https://us.example' });
    expect(c.regionForwarding).toBe(true);
    expect(c.regionForwardTimeoutSeconds).toBe(5);
  });

  it("refuses a table without this node's region or a license region, and bad entries, naming each", () => {
    expect(problemsOf({ DOCPARSE_REGION: 'ap-south-1', DOCPARSE_REGION_URLS: 'eu=https://eu.example' })).toEqual([
      'DOCPARSE_REGION=ap-south-1 is in no region of DOCPARSE_REGION_URLS (eu)',
    ]);
    expect(problemsOf({ DOCPARSE_REGION: 'eu', DOCPARSE_REGIONS: 'eu,us-east-1', DOCPARSE_REGION_URLS: 'eu=https://eu.example' })).toEqual([
      'DOCPARSE_REGIONS: us-east-1 is in no region of DOCPARSE_REGION_URLS (eu)',
    ]);
    expect(problemsOf({ DOCPARSE_REGION: 'eu', DOCPARSE_REGION_URLS: 'eu=https://eu.example,us=ftp://us' })).toEqual([
      'DOCPARSE_REGION_URLS: us: "ftp://us" must use http:// or https://',
    ]);
    expect(problemsOf({ DOCPARSE_REGION_FORWARD_TIMEOUT_SECONDS: '0', DOCPARSE_REGION_FORWARDING: 'maybe' })).toEqual([
      'DOCPARSE_REGION_FORWARDING="maybe" is not a boolean (expected true or false)',
      'DOCPARSE_REGION_FORWARD_TIMEOUT_SECONDS=0 is out of range (expected 1–3600)',
    ]);
  });
});
