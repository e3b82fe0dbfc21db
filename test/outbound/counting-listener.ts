// A real HTTP listener on a loopback address that counts what reaches it: TCP connections and
// requests. "Refused" in these tests means both stay at zero.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CountingListener {
  host: string;
  port: number;
  /** http://host:port (IPv6 hosts in brackets). */
  url: string;
  connections: number;
  requests: { method: string; url: string }[];
  /** Drops idle keep-alive connections, so the next request must connect anew. */
  dropIdle(): void;
  close(): Promise<void>;
}

export type Answer = (req: http.IncomingMessage, res: http.ServerResponse) => void;

const ok: Answer = (_req, res) => res.writeHead(200, { 'content-type': 'application/xml' }).end();

/** Listens on host (127.0.0.1 by default) and port (0: a free one); answers 200 unless told otherwise. */
export async function startCountingListener(opts: { host?: string; port?: number; answer?: Answer } = {}): Promise<CountingListener> {
  const host = opts.host ?? '127.0.0.1';
  const answer = opts.answer ?? ok;
  const server = http.createServer((req, res) => {
    l.requests.push({ method: req.method ?? '', url: req.url ?? '' });
    req.resume();
    req.on('end', () => answer(req, res));
  });
  server.on('connection', () => {
    l.connections++;
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const l: CountingListener = {
    host,
    port,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    connections: 0,
    requests: [],
    dropIdle: () => server.closeIdleConnections(),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return l;
}
