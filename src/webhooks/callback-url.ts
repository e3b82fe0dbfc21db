// Whether a callbackUrl may be stored for a job: https (http only to a loopback address, and
// only when DOCPARSE_ALLOW_HTTP_CALLBACKS is on, for development), and a host the outbound
// policy lets the node reach — every address the name resolves to now. The same policy is
// applied again on every connection of every attempt (src/outbound), so a name that resolves
// elsewhere later (DNS rebinding) is refused then.
import type { LookupAddress } from 'node:dns';
import ipaddr from 'ipaddr.js';
import type { OutboundPolicy } from '../outbound/outbound-policy.js';

export const CALLBACK_URL_MAX_LENGTH = 2048;

function isLoopback(address: string): boolean {
  try {
    return ipaddr.process(address).range() === 'loopback';
  } catch {
    return false;
  }
}

export class CallbackUrlPolicy {
  constructor(
    private readonly outbound: OutboundPolicy,
    private readonly allowHttp: boolean,
  ) {}

  /** Why this URL may not be called back, or null when it may. */
  async refusal(raw: string): Promise<string | null> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return 'is not a URL';
    }
    const scheme = this.outbound.urlRefusal(raw);
    if (scheme) return scheme;
    if (url.hash) return 'must not have a #fragment';
    const host = url.hostname.replace(/^\[|\]$/g, '');
    let addresses: LookupAddress[];
    try {
      addresses = await this.resolve(host);
    } catch (err) {
      return `host ${host} cannot be reached: ${(err as Error).message}`;
    }
    if (url.protocol === 'http:') {
      if (!this.allowHttp) return 'must use https://';
      if (!addresses.every((a) => isLoopback(a.address))) return 'may use http:// only for a loopback address; use https://';
    }
    return null;
  }

  /** Every address of the host, through the outbound policy's lookup: one refused address refuses the host. */
  private resolve(host: string): Promise<LookupAddress[]> {
    return new Promise((resolve, reject) => {
      this.outbound.lookup(host, { all: true }, (err, addresses) => {
        if (err) reject(err);
        else resolve(addresses as unknown as LookupAddress[]);
      });
    });
  }
}
