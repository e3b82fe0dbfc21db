// DOCPARSE_OUTBOUND_ALLOW: the ranges an operator opens to requests on a tenant's behalf,
// read at boot; a wrong entry stops the node with the variable and the entry named.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('DOCPARSE_OUTBOUND_ALLOW', () => {
  it('is empty by default: public addresses only', () => {
    expect(loadConfig({}).outboundAllow).toEqual([]);
  });

  it('reads comma-separated CIDR ranges and single addresses', () => {
    const c = loadConfig({ DOCPARSE_OUTBOUND_ALLOW: ' 10.0.0.0/8, fd00::/8 ,192.168.7.20,,10.0.0.0/8' });
    expect(c.outboundAllow).toEqual(['10.0.0.0/8', 'fd00::/8', '192.168.7.20']);
  });

  it('refuses to start on an entry that is not a range, naming it', () => {
    let err: unknown;
    try {
      loadConfig({ DOCPARSE_OUTBOUND_ALLOW: '10.0.0.0/8, minio.internal, 10.0.0.0/40' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const problems = (err as ConfigError).problems;
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^DOCPARSE_OUTBOUND_ALLOW: "minio\.internal" is not a CIDR range/);
    expect(problems[1]).toMatch(/^DOCPARSE_OUTBOUND_ALLOW: "10\.0\.0\.0\/40" is not a CIDR range/);
  });
});
