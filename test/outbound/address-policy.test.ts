// Which addresses the node may reach on a tenant's behalf, over the forms an address takes
// (numeric, hex, octal and short IPv4 as getaddrinfo and the URL parser read them; IPv6 with
// IPv4 inside), and what an operator's allow list opens.
import { describe, expect, it } from 'vitest';
import { AddressPolicy, parseRange } from '../../src/outbound/address-policy.js';

const strict = new AddressPolicy();

describe('address policy', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.1', 'loopback'],
    ['2130706433', 'loopback'],
    ['0x7f000001', 'loopback'],
    ['0177.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback (in ipv4Mapped)'],
    ['::ffff:7f00:1', 'loopback (in ipv4Mapped)'],
    ['::ffff:0:7f00:1', 'loopback (in rfc6145)'],
    ['64:ff9b::7f00:1', 'loopback (in rfc6052)'],
    ['64:ff9b::a9fe:a9fe', 'linkLocal (in rfc6052)'],
    ['2002:a00:1::', 'private (in 6to4)'],
    ['::7f00:1', 'not global unicast'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['169.254.169.254', 'linkLocal'],
    ['fd00:ec2::254', 'uniqueLocal'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.127.255.254', 'carrierGradeNat'],
    ['fc00::1', 'uniqueLocal'],
    ['fe80::1', 'linkLocal'],
    ['fe80::1%eth0', 'linkLocal'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.2.10', 'reserved'],
    ['198.51.100.7', 'reserved'],
    ['203.0.113.9', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['2001:2::1', 'benchmarking'],
    ['64:ff9b:1::a00:1', 'rfc6052'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
    ['storage.example.com', 'not an IP address'],
  ])('%s is refused as %s', (address, why) => {
    expect(strict.refusal(address)).toBe(why);
  });

  it.each(['8.8.8.8', '52.216.8.1', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::'])(
    'public %s is allowed',
    (address) => {
      expect(strict.refusal(address)).toBeNull();
    },
  );

  it("an operator's ranges are allowed, in every form of their addresses, and nothing beside them", () => {
    const onPrem = new AddressPolicy(['10.0.0.0/8', '127.0.0.0/8', 'fd12:3456::/32', '169.254.169.253']);
    for (const a of ['10.200.0.5', '127.0.0.1', '127.1', '0x7f000001', '::ffff:127.0.0.1', '::ffff:a00:1', 'fd12:3456::9', '169.254.169.253'])
      expect(onPrem.refusal(a), a).toBeNull();
    expect(onPrem.refusal('169.254.169.254')).toBe('linkLocal');
    expect(onPrem.refusal('192.168.0.1')).toBe('private');
    expect(onPrem.refusal('::1')).toBe('loopback');
    expect(onPrem.refusal('fd12:3457::1')).toBe('uniqueLocal');
  });

  it('reads ranges and single addresses; refuses anything else', () => {
    expect(parseRange('10.0.0.0/8')?.[1]).toBe(8);
    expect(parseRange(' fd00::/8 ')?.[1]).toBe(8);
    expect(parseRange('192.168.4.4')?.[1]).toBe(32);
    expect(parseRange('::1')?.[1]).toBe(128);
    for (const bad of ['10.0.0.0/33', 'fd00::/129', 'minio.local', '10.0.0.0/', '', '*']) expect(parseRange(bad), bad).toBeNull();
    expect(() => new AddressPolicy(['10.0.0.0/8', 'nope'])).toThrow(/nope/);
  });
});
