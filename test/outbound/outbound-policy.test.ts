// The outbound policy on real connections: agents refuse every form of a loopback address
// before a connection is made (the listener sees nothing), an operator's range goes through,
// and a name that resolves to an allowed address first and to a refused one on the next
// lookup (DNS rebinding) is refused when the agent reconnects. The resolver stub there is the
// only stand-in; everything else is real sockets on this machine's loopback.
import http from 'node:http';
import type { LookupAddress } from 'node:dns';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OutboundPolicy, OutboundRefusedError, type Resolve } from '../../src/outbound/outbound-policy.js';
import { startCountingListener, type CountingListener } from './counting-listener.js';

/** One GET through the agent: the status, or the error the request failed with. */
function get(target: string | http.RequestOptions, agent: http.Agent): Promise<number | Error> {
  return new Promise((resolve) => {
    const req = typeof target === 'string' ? http.request(target, { agent }) : http.request({ ...target, agent });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', resolve);
    req.end();
  });
}

const until = async (done: () => boolean) => {
  for (let i = 0; i < 100 && !done(); i++) await new Promise((r) => setTimeout(r, 20));
};

describe('outbound policy on real connections', () => {
  let v4: CountingListener;
  let v6: CountingListener;
  const agents: http.Agent[] = [];
  const agentOf = (policy: OutboundPolicy) => {
    const { http: agent } = policy.agents({ keepAlive: true });
    agents.push(agent);
    return agent;
  };

  beforeAll(async () => {
    v4 = await startCountingListener();
    v6 = await startCountingListener({ host: '::1', port: v4.port });
  });
  afterEach(() => {
    for (const a of agents.splice(0)) a.destroy();
  });
  afterAll(async () => {
    await v4?.close();
    await v6?.close();
  });

  it('refuses every form of a loopback, unspecified or private address before connecting; nothing reaches the listeners', async () => {
    const agent = agentOf(new OutboundPolicy());
    const p = v4.port;
    // As the WHATWG URL parser reads them (the SDK's path) …
    const urls = [
      `http://127.0.0.1:${p}/`,
      `http://127.1:${p}/`,
      `http://2130706433:${p}/`,
      `http://0x7f000001:${p}/`,
      `http://0177.0.0.1:${p}/`,
      `http://[::1]:${p}/`,
      `http://[::ffff:127.0.0.1]:${p}/`,
      `http://[::ffff:7f00:1]:${p}/`,
      `http://0.0.0.0:${p}/`,
      `http://localhost:${p}/`,
    ];
    // … and as getaddrinfo reads a host handed to it unparsed.
    const hosts = ['127.1', '2130706433', '0x7f000001', '0177.0.0.1', 'localhost', '::ffff:127.0.0.1'];
    for (const target of [...urls, ...hosts.map((host) => ({ host, port: p, path: '/' }))]) {
      const answer = await get(target, agent);
      expect(answer, JSON.stringify(target)).toBeInstanceOf(OutboundRefusedError);
    }
    expect(v4.connections + v6.connections).toBe(0);
    expect([...v4.requests, ...v6.requests]).toEqual([]);

    // The other classes are refused the same way, before any packet is sent (no listener can be there).
    for (const host of ['169.254.169.254', '10.0.0.1', '172.16.0.1', '192.168.0.1', '100.64.0.1', '[fc00::1]', '[fe80::1]', '224.0.0.1']) {
      const answer = await get(`http://${host}:${p}/`, agent);
      expect(answer, host).toBeInstanceOf(OutboundRefusedError);
      expect((answer as OutboundRefusedError).code).toBe('EOUTBOUNDREFUSED');
    }
  });

  it('an operator-allowed range goes through', async () => {
    const agent = agentOf(new OutboundPolicy({ allow: ['127.0.0.0/8'] }));
    const before = v4.requests.length;
    expect(await get(`${v4.url}/allowed`, agent)).toBe(200);
    expect(await get({ host: '127.1', port: v4.port, path: '/allowed-short' }, agent)).toBe(200);
    expect(v4.requests.slice(before).map((r) => r.url)).toEqual(['/allowed', '/allowed-short']);
    // [::1] is not in 127.0.0.0/8.
    expect(await get(`${v6.url}/`, agent)).toBeInstanceOf(OutboundRefusedError);
    expect(v6.connections).toBe(0);
  });

  it('a name with one refused address among its answers is refused', async () => {
    const resolve: Resolve = async () => [
      { address: '8.8.8.8', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
    const agent = agentOf(new OutboundPolicy({ resolve }));
    const before = v4.connections;
    const answer = await get({ host: 'mixed.example.test', port: v4.port, path: '/' }, agent);
    expect(answer).toBeInstanceOf(OutboundRefusedError);
    expect((answer as OutboundRefusedError).address).toBe('127.0.0.1');
    expect(v4.connections).toBe(before);
  });

  it('DNS rebinding: an allowed answer first, a loopback one on the next lookup — the reconnect is refused', async () => {
    // 127.0.0.2 stands in for a public address (allowed here); the same port on 127.0.0.1 is the target.
    const publicSide = await startCountingListener({ host: '127.0.0.2' });
    const target = await startCountingListener({ host: '127.0.0.1', port: publicSide.port });
    try {
      const answers: LookupAddress[][] = [[{ address: '127.0.0.2', family: 4 }], [{ address: '127.0.0.1', family: 4 }]];
      let lookups = 0;
      const resolve: Resolve = async () => answers[Math.min(lookups++, answers.length - 1)];
      const agent = agentOf(new OutboundPolicy({ allow: ['127.0.0.2/32'], resolve }));
      const at = { host: 'bucket.rebind.test', port: publicSide.port, path: '/' };

      expect(await get(at, agent)).toBe(200);
      expect(publicSide.requests).toHaveLength(1);
      // The kept-alive connection is gone; the agent must connect (and look the name up) again.
      publicSide.dropIdle();
      await until(() => Object.keys(agent.freeSockets).length === 0);
      expect(Object.keys(agent.freeSockets)).toEqual([]);

      const answer = await get(at, agent);
      expect(answer).toBeInstanceOf(OutboundRefusedError);
      expect(answer).toMatchObject({ host: 'bucket.rebind.test', address: '127.0.0.1', addressClass: 'loopback' });
      expect(lookups).toBe(2);
      expect(target.connections).toBe(0);
      expect(target.requests).toEqual([]);
      expect(publicSide.requests).toHaveLength(1);
    } finally {
      await publicSide.close();
      await target.close();
    }
  });

  it('refuses URLs that are not http(s) or that carry credentials', () => {
    const policy = new OutboundPolicy();
    expect(policy.urlRefusal('https://s3.eu-west-1.amazonaws.com')).toBeNull();
    expect(policy.urlRefusal('http://minio.example.com:9000/')).toBeNull();
    expect(policy.urlRefusal('ftp://files.example.com')).toMatch(/http/);
    expect(policy.urlRefusal('file:///etc/passwd')).toMatch(/http/);
    expect(policy.urlRefusal('https://user:pass@s3.example.com')).toMatch(/credentials/);
    expect(policy.urlRefusal('https://user@s3.example.com')).toMatch(/credentials/);
    expect(policy.urlRefusal('not a url')).toMatch(/not a URL/);
  });
});
