// Resource figures of the node's process tree from /proc: resident memory of the node and
// every descendant (LibreOffice, parse hosts…), sampled every 200 ms, and open descriptors.
import fs from 'node:fs';

/** pid → parent pid for every process visible in /proc. */
function parentMap() {
  const parents = new Map();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parents.set(Number(name), Number(fields[1]));
    } catch {
      /* the process ended while we looked */
    }
  }
  return parents;
}

/** The pid and all its descendants. */
export function processTree(rootPid) {
  const children = new Map();
  for (const [pid, ppid] of parentMap()) {
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid).push(pid);
  }
  const out = [];
  const stack = [rootPid];
  while (stack.length) {
    const pid = stack.pop();
    out.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** VmRSS in KiB (0 when the process is gone). */
export function rssKb(pid) {
  try {
    const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** Open file descriptors of a process (null when it is gone). */
export function fdCount(pid) {
  try {
    return fs.readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return null;
  }
}

function command(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '?';
  }
}

export function snapshot(rootPid) {
  const tree = processTree(rootPid);
  let treeRss = 0;
  let treeFds = 0;
  const members = [];
  for (const pid of tree) {
    const rss = rssKb(pid);
    treeRss += rss;
    treeFds += fdCount(pid) ?? 0;
    members.push({ pid, comm: command(pid), rssKb: rss });
  }
  return { nodeRssKb: rssKb(rootPid), treeRssKb: treeRss, nodeFds: fdCount(rootPid), treeFds, processes: tree.length, members };
}

/** Samples one node's tree every intervalMs and keeps the peaks. */
export class TreeSampler {
  /** context(): what to remember alongside a new peak (e.g. the cases in flight). */
  constructor(pid, { intervalMs = 200, context = () => null } = {}) {
    this.pid = pid;
    this.context = context;
    this.peakContext = null;
    this.peak = { nodeRssKb: 0, treeRssKb: 0, nodeFds: 0, treeFds: 0, processes: 0 };
    this.samples = 0;
    this.peakMembers = [];
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
  }

  sample() {
    const s = snapshot(this.pid);
    if (s.nodeFds === null) return s;
    this.samples++;
    // What the tree held at its largest: which processes the memory was in.
    if (s.treeRssKb > this.peak.treeRssKb) {
      this.peakMembers = s.members;
      this.peakContext = this.context();
    }
    for (const k of Object.keys(this.peak)) this.peak[k] = Math.max(this.peak[k], s[k]);
    return s;
  }

  stop() {
    clearInterval(this.timer);
  }
}
