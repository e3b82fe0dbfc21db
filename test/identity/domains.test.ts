// Allowed-domain matching rules (the HTTP-level cases are in api-auth.test.ts).
import { describe, expect, it } from 'vitest';
import { browserSource, isAllowedOrigin } from '../../src/identity/domains.js';

describe('isAllowedOrigin', () => {
  const allowed = ['app.example.com', 'localhost:8080', '[::1]:8443', '10.0.0.5', 'api.example.com:443'];
  it.each([
    ['https://app.example.com', true],
    ['http://app.example.com', true],
    ['https://APP.example.com', true],
    ['https://app.example.com:443', true],
    ['http://app.example.com:80', true],
    ['https://app.example.com:444', false],
    ['http://app.example.com:443', false],
    ['https://app.example.com.evil.com', false],
    ['https://app.example.evil.com', false],
    ['https://xapp.example.com', false],
    ['https://sub.app.example.com', false],
    ['http://localhost:8080', true],
    ['http://localhost', false],
    ['http://localhost:80', false],
    ['https://[::1]:8443', true],
    ['https://[::1]', false],
    ['http://10.0.0.5', true],
    ['http://10.0.0.5:8080', false],
    ['https://api.example.com', true],
    ['http://api.example.com', false],
    ['https://user:pw@app.example.com', true],
    ['null', false],
    ['', false],
    ['app.example.com', false],
    ['ftp://app.example.com', false],
    ['javascript:alert(1)', false],
  ])('%s → %s', (origin, expected) => {
    expect(isAllowedOrigin(origin, allowed)).toBe(expected);
  });

  it('entries are compared case-insensitively', () => {
    expect(isAllowedOrigin('https://app.example.com', ['App.Example.COM'])).toBe(true);
  });

  it('no allowed domains: nothing matches', () => {
    expect(isAllowedOrigin('https://app.example.com', [])).toBe(false);
  });
});

describe('browserSource', () => {
  it('prefers Origin, falls back to Referer, null for non-browser requests', () => {
    expect(browserSource({ origin: 'https://a', referer: 'https://b/' })).toEqual({ header: 'origin', value: 'https://a' });
    expect(browserSource({ referer: 'https://b/' })).toEqual({ header: 'referer', value: 'https://b/' });
    expect(browserSource({})).toBeNull();
  });
});
