// Every request the node makes on a tenant's behalf (their storage endpoints now; webhooks and
// region forwarding later) goes through this policy: only http(s) URLs without credentials,
// and only to addresses the AddressPolicy allows. The check runs when a connection is made —
// for every new connection, keep-alive reconnects included — on the address actually dialled,
// so a name that resolves to a public address at save time and to 127.0.0.1 later (DNS
// rebinding) is refused then. Redirects are not this module's: callers follow none.
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { AddressPolicy } from './address-policy.js';

/** Resolves a host name to every address (dns.lookup's answer); tests stand a stub in for it. */
export type Resolve = (hostname: string, family: 0 | 4 | 6) => Promise<dns.LookupAddress[]>;

const systemResolve: Resolve = (hostname, family) => dns.promises.lookup(hostname, { all: true, family, verbatim: true });

/** Where refusals and the raw errors behind a tenant-facing reason are logged (pino's shape). */
export interface OutboundLog {
  debug(details: object, message: string): void;
}

export interface OutboundOptions {
  /** CIDR ranges an operator allows besides public unicast (DOCPARSE_OUTBOUND_ALLOW). */
  allow?: readonly string[];
  resolve?: Resolve;
  log?: OutboundLog;
}

/** A connection the policy refused; no byte was sent. `code` reads like a socket error's. */
export class OutboundRefusedError extends Error {
  readonly code = 'EOUTBOUNDREFUSED';

  constructor(
    readonly host: string,
    readonly address: string,
    /** The refused class, e.g. `loopback` (address-policy.ts). */
    readonly addressClass: string,
  ) {
    super(`${host} resolves to ${address}, a ${addressClass} address the outbound policy refuses`);
    this.name = 'OutboundRefusedError';
  }
}

type ConnectCallback = (err: Error | null, stream: Duplex) => void;
type Connect = (options: http.ClientRequestArgs, callback?: ConnectCallback) => Duplex | null | undefined;

const quiet: OutboundLog = { debug: () => {} };

export class OutboundPolicy {
  private readonly addresses: AddressPolicy;
  readonly log: OutboundLog;
  private readonly resolve: Resolve;

  constructor(o: OutboundOptions = {}) {
    this.addresses = new AddressPolicy(o.allow ?? []);
    this.resolve = o.resolve ?? systemResolve;
    this.log = o.log ?? quiet;
  }

  /** Why this URL may not be requested at all (scheme, credentials), or null. */
  urlRefusal(url: string): string | null {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return 'is not a URL';
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'must use http:// or https://';
    if (u.username || u.password) return 'must not carry credentials (user:password@)';
    return null;
  }

  /** The refusal of one address for one host, logged; null when the policy allows it. */
  private refuse(host: string, address: string): OutboundRefusedError | null {
    const addressClass = this.addresses.refusal(address);
    if (addressClass === null) return null;
    this.log.debug({ host, address, addressClass }, 'outbound connection refused');
    return new OutboundRefusedError(host, address, addressClass);
  }

  /** dns.lookup's shape for net.connect: every answer is checked, and one refused address refuses the name. */
  readonly lookup: net.LookupFunction = (hostname, options, callback) => {
    const family = options.family === 4 || options.family === 'IPv4' ? 4 : options.family === 6 || options.family === 'IPv6' ? 6 : 0;
    this.resolve(hostname, family).then(
      (answers) => {
        if (answers.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
        for (const a of answers) {
          const refused = this.refuse(hostname, a.address);
          if (refused) return callback(refused, '', 0);
        }
        if (options.all) callback(null, answers);
        else callback(null, answers[0].address, answers[0].family);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };

  /**
   * Opens a connection through `open` when the host is allowed: an IP literal is checked here
   * (net.connect skips the lookup for one), a name by `lookup` as it is resolved, and the
   * address connected to once more when the socket connects.
   */
  connect(options: http.ClientRequestArgs, callback: ConnectCallback | undefined, open: Connect): Duplex | null | undefined {
    const host = (options.host ?? options.hostname ?? 'localhost').replace(/^\[|\]$/g, '');
    const refused = net.isIP(host) ? this.refuse(host, host) : null;
    if (refused) {
      process.nextTick(() => callback?.(refused, undefined as unknown as Duplex));
      return undefined;
    }
    const socket = open({ ...options, lookup: this.lookup } as http.ClientRequestArgs, callback);
    if (socket instanceof net.Socket) {
      // Registered before any write is queued, so it runs before buffered request bytes go out.
      socket.once('connect', () => {
        const late = this.refuse(host, socket.remoteAddress ?? '');
        if (late) socket.destroy(late);
      });
    }
    return socket;
  }

  /** An http and an https agent whose every new connection goes through connect(). */
  agents(options: http.AgentOptions = {}): { http: http.Agent; https: https.Agent } {
    return { http: new GuardedHttpAgent(this, options), https: new GuardedHttpsAgent(this, options) };
  }
}

class GuardedHttpAgent extends http.Agent {
  constructor(
    private readonly policy: OutboundPolicy,
    options: http.AgentOptions,
  ) {
    super(options);
  }

  override createConnection(options: http.ClientRequestArgs, callback?: ConnectCallback): Duplex | null | undefined {
    return this.policy.connect(options, callback, (o, cb) => super.createConnection(o, cb));
  }
}

class GuardedHttpsAgent extends https.Agent {
  constructor(
    private readonly policy: OutboundPolicy,
    options: https.AgentOptions,
  ) {
    super(options);
  }

  override createConnection(options: https.RequestOptions, callback?: ConnectCallback): Duplex | null | undefined {
    return this.policy.connect(options, callback, (o, cb) => super.createConnection(o, cb));
  }
}
