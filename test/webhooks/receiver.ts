// A webhook receiver for tests: plain http on a loopback address, recording every POST (headers
// and raw body) and answering what the test scripts for it (200 unless told otherwise).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: Record<string, string>;
  body: string;
  answeredWith: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Answers `status` to the next `times` requests whose body mentions `documentId`. */
  fail(documentId: string, status: number, times: number): void;
  for(documentId: string): Received[];
  close(): Promise<void>;
}

export async function startReceiver(host = '127.0.0.1'): Promise<Receiver> {
  const received: Received[] = [];
  const failures = new Map<string, { status: number; left: number }>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let status = 200;
      for (const [id, f] of failures) {
        if (f.left > 0 && body.includes(JSON.stringify(id))) {
          f.left--;
          status = f.status;
        }
      }
      received.push({ headers: req.headers as Record<string, string>, body, answeredWith: status });
      res.writeHead(status).end(status === 200 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}/hooks/docparse`,
    received,
    fail: (documentId, status, times) => failures.set(documentId, { status, left: times }),
    for: (documentId) => received.filter((r) => (JSON.parse(r.body) as { documentId: string }).documentId === documentId),
    close: () => new Promise((r) => server.close(() => r())),
  };
}
