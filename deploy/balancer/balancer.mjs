#!/usr/bin/env node
// A reference load balancer for a docparse cluster, on Node's own http module: it polls every
// node's /health/node-state, and sends each request to the least-loaded node that accepts
// traffic and runs the role the request needs (`auth` for the token endpoint and its discovery
// documents, `api` for everything else). A draining node says `acceptingTraffic: false` at once
// and gets nothing more; a node that does not answer its poll is skipped until it does.
// Bodies stream both ways, never buffered. A request whose connection to a node could not be
// opened (nothing of its body sent yet) is tried on the next node.
//
//   BALANCER_NODES=http://10.0.0.1:8080,http://10.0.0.2:8080 BALANCER_PORT=8080 node balancer.mjs
//
// Load: the requests this balancer has in flight to the node, plus the node's own count of
// active requests (all clients', as of its last poll), plus one for each whole core its
// process keeps busy. Ties go round-robin. GET /balancer/nodes shows what the balancer knows of each node.
import http from 'node:http';
import { pathToFileURL } from 'node:url';

const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer'];

/** Starts the balancer; resolves once it listens and has polled every node once. */
export async function startBalancer({ nodes, port = 8080, host = '127.0.0.1', pollMs = 1000, log = console }) {
  const state = nodes.map((url) => ({
    url: url.replace(/\/+$/, ''),
    up: false,
    accepting: false,
    roles: [],
    nodeId: null,
    active: 0,
    cpu: 0,
    inFlight: 0,
    sent: 0,
    error: 'not polled yet',
  }));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  let turn = 0;

  async function poll(n) {
    try {
      const res = await fetch(`${n.url}/health/node-state`, { signal: AbortSignal.timeout(Math.max(500, pollMs * 2)) });
      if (!res.ok) throw new Error(`node-state answered ${res.status}`);
      const s = await res.json();
      if (n.up && n.accepting && !s.acceptingTraffic) log.info?.(`balancer: ${n.url} is draining`);
      Object.assign(n, {
        up: true,
        accepting: s.acceptingTraffic === true,
        roles: s.roles ?? [],
        nodeId: s.nodeId ?? null,
        active: s.activeRequests ?? 0,
        cpu: (s.cpu?.processPercent ?? 0) / 100,
        error: null,
      });
    } catch (err) {
      if (n.up) log.warn?.(`balancer: ${n.url} stopped answering: ${err.message}`);
      Object.assign(n, { up: false, accepting: false, error: err.message });
    }
  }
  const pollAll = () => Promise.all(state.map(poll));
  await pollAll();
  const timer = setInterval(pollAll, pollMs);

  /** The least-loaded node that accepts traffic and has the role, skipping those already tried. */
  function pick(role, tried) {
    const ok = state.filter((n) => n.up && n.accepting && n.roles.includes(role) && !tried.has(n));
    if (!ok.length) return null;
    const start = turn++ % ok.length;
    const order = ok.slice(start).concat(ok.slice(0, start));
    return order.reduce((best, n) => (load(n) < load(best) ? n : best));
  }
  const load = (n) => n.inFlight + n.active + Math.floor(n.cpu);

  function forward(req, res, tried) {
    const role = /^\/(connect|\.well-known)\//.test(req.url) ? 'auth' : 'api';
    const node = pick(role, tried);
    if (!node) return unavailable(res, role);
    tried.add(node);
    node.inFlight++;
    node.sent++;
    let done = false;
    const release = () => {
      if (!done) node.inFlight--;
      done = true;
    };
    const headers = { ...req.headers };
    for (const h of HOP_BY_HOP) delete headers[h];
    const peer = req.socket.remoteAddress ?? '';
    headers['x-forwarded-for'] = req.headers['x-forwarded-for'] ? `${req.headers['x-forwarded-for']}, ${peer}` : peer;
    headers['x-forwarded-proto'] ??= 'http';
    let bodySent = false;
    const up = http.request(`${node.url}${req.url}`, { method: req.method, headers, agent }, (upRes) => {
      const out = { ...upRes.headers };
      for (const h of HOP_BY_HOP) delete out[h];
      if (node.nodeId) out['x-docparse-node'] = node.nodeId;
      res.writeHead(upRes.statusCode ?? 502, out);
      upRes.pipe(res);
      upRes.on('end', release);
      upRes.on('error', () => res.destroy()); // the node went away mid-answer: so does the client's
    });
    up.on('socket', (sock) => {
      const send = () => {
        bodySent = true;
        req.pipe(up);
      };
      if (sock.connecting) sock.once('connect', send);
      else send();
    });
    up.on('error', (err) => {
      release();
      if (!bodySent && !res.headersSent) {
        node.up = false; // until its next poll answers
        node.error = err.message;
        return forward(req, res, tried);
      }
      if (!res.headersSent) problem(res, 502, 'bad_gateway', `The node ${node.url} failed: ${err.message}`);
      else res.destroy();
    });
    res.on('close', () => {
      release();
      if (!res.writableFinished) up.destroy();
    });
  }

  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/balancer/nodes') {
      const nodesView = state.map(({ url, nodeId, up, accepting, roles, active, cpu, inFlight, sent, error }) => ({
        url,
        nodeId,
        up,
        accepting,
        roles,
        active,
        cpu,
        inFlight,
        sent,
        error,
      }));
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ nodes: nodesView }));
    }
    forward(req, res, new Set());
  });
  await new Promise((resolve, reject) => server.once('error', reject).listen(port, host, resolve));
  const { port: bound } = server.address();
  return {
    url: `http://${host}:${bound}`,
    nodes: () => state,
    close: () => {
      clearInterval(timer);
      agent.destroy();
      return new Promise((resolve) => server.close(() => resolve()).closeAllConnections());
    },
  };
}

function unavailable(res, role) {
  problem(res, 503, 'service_unavailable', `No node with the ${role} role accepts traffic right now; retry shortly.`, { 'retry-after': '5' });
}

function problem(res, status, code, detail, headers = {}) {
  res.writeHead(status, { 'content-type': 'application/problem+json', ...headers });
  res.end(JSON.stringify({ type: 'about:blank', title: http.STATUS_CODES[status], status, code, detail }));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const nodes = (process.env.BALANCER_NODES ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!nodes.length) {
    console.error('BALANCER_NODES is empty: give the nodes as comma-separated URLs (http://host:port)');
    process.exit(2);
  }
  const b = await startBalancer({
    nodes,
    port: Number(process.env.BALANCER_PORT ?? 8080),
    host: process.env.BALANCER_HOST ?? '0.0.0.0',
    pollMs: Number(process.env.BALANCER_POLL_MS ?? 1000),
  });
  console.log(`balancer: ${b.url} → ${nodes.join(', ')}`);
  const stop = () => b.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
