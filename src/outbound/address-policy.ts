// Which addresses the node may connect to on a tenant's behalf: public unicast only, unless an
// operator allowed a range (DOCPARSE_OUTBOUND_ALLOW, e.g. an on-premises MinIO on 10.0.0.0/8).
// The address classes are ipaddr.js's (RFC 6890 and friends), not ranges written here; an IPv6
// address that carries an IPv4 one (mapped, NAT64, 6to4) is judged by the IPv4 address it
// reaches. Plain data in, a verdict out: nothing of the service is imported.
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Range = [Address, number];

/** IPv6 forms whose traffic reaches the IPv4 address embedded in them. */
const CARRIES_IPV4 = new Set(['ipv4Mapped', 'rfc6145', 'rfc6052', '6to4']);
/** Global unicast IPv6 (RFC 4291 §2.4): anything outside it is not a public destination. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3') as [ipaddr.IPv6, number];
/** NAT64 for local use (RFC 8215): its IPv4 addresses are the operator's own network. */
const LOCAL_NAT64 = ipaddr.parseCIDR('64:ff9b:1::/48') as [ipaddr.IPv6, number];

/**
 * One entry of an allow list: a CIDR range, or a single address (its /32 or /128). Null when
 * it is neither. ipaddr.js reads the numeric IPv4 forms too (127.1, 0x7f000001, 0177.0.0.1).
 */
export function parseRange(entry: string): Range | null {
  const text = entry.trim();
  try {
    if (text.includes('/')) return ipaddr.parseCIDR(text);
    const address = ipaddr.parse(text);
    return [address, address.kind() === 'ipv4' ? 32 : 128];
  } catch {
    return null;
  }
}

/** The IPv4 address an IPv6 one carries (mapped, SIIT, NAT64 /96, 6to4), else null. */
function embeddedIpv4(address: ipaddr.IPv6, range: string): ipaddr.IPv4 | null {
  if (!CARRIES_IPV4.has(range) || address.match(LOCAL_NAT64)) return null;
  const b = address.toByteArray();
  // 6to4 (2002:AABB:CCDD::/48) holds it in bytes 2–5; the others in the last four.
  const at = range === '6to4' ? 2 : 12;
  return new ipaddr.IPv4(b.slice(at, at + 4));
}

function inAny(address: Address, ranges: readonly Range[]): boolean {
  return ranges.some(([net, bits]) => net.kind() === address.kind() && address.match(net, bits));
}

export class AddressPolicy {
  private readonly allowed: Range[];

  /** @param allow CIDR ranges (or single addresses) an operator allows besides public unicast. */
  constructor(allow: readonly string[] = []) {
    this.allowed = allow.map((entry) => {
      const range = parseRange(entry);
      if (!range) throw new Error(`not an address range: ${JSON.stringify(entry)}`);
      return range;
    });
  }

  /**
   * Null when the node may connect to this address; else the class that refuses it, e.g.
   * `loopback`, `private`, `linkLocal`, `uniqueLocal`, `carrierGradeNat`, `multicast`,
   * `reserved` (documentation, benchmarking, future use), `not an IP address`.
   */
  refusal(text: string): string | null {
    let address: Address;
    try {
      address = ipaddr.parse(text.replace(/^\[|\]$/g, ''));
    } catch {
      return 'not an IP address';
    }
    if (inAny(address, this.allowed)) return null;
    if (address.kind() === 'ipv4') return address.range() === 'unicast' ? null : address.range();
    const v6 = address as ipaddr.IPv6;
    const range = v6.range();
    const v4 = embeddedIpv4(v6, range);
    if (v4) {
      const inner = this.refusal(v4.toString());
      return inner === null ? null : `${inner} (in ${range})`;
    }
    if (range !== 'unicast') return range;
    // ipaddr.js calls every address outside its special ranges unicast, ::7f00:1 too.
    return v6.match(GLOBAL_UNICAST_V6) ? null : 'not global unicast';
  }
}
