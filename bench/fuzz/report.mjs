// The markdown summary of a run: outcomes per family, the node's resources, and every
// finding with the command that replays it.
import { FAMILIES } from './seeds.mjs';
import { reasonShape } from './verdict.mjs';
import { DEFAULT_MAX_SEED_BYTES } from './runner.mjs';

const mib = (kb) => (kb ? `${Math.round(kb / 1024)} MiB` : '–');
const dur = (ms) => {
  const s = Math.round(ms / 1000);
  return s >= 3600 ? `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min` : s >= 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s} s`;
};

export function replayCommand(r) {
  const extra = r.maxSeedBytes && r.maxSeedBytes !== DEFAULT_MAX_SEED_BYTES ? ` --max-seed-bytes ${r.maxSeedBytes}` : '';
  return `node bench/fuzz/fuzz.mjs --seed ${r.seed} --case ${r.index}${extra}`;
}

/** Per-record findings: the hard ones (crash, stuck, 5xx, no reason, …) and raw reasons. */
export function findingsOf(r) {
  const hard = [];
  if (r.outcome === 'crash') hard.push(`in flight when node crash #${r.crash} happened`);
  if (r.outcome === 'stuck') hard.push(`stuck: not terminal ${r.stuckFor} s (last state ${r.lastState})`);
  if (r.server5xx.length) hard.push(`5xx: ${r.server5xx.map((e) => `${e.what} ${e.status} ${e.body}`).join('; ')}`);
  if (r.noReason) hard.push('failed without a reason');
  if (r.outcome === 'transport-error') hard.push(`transport error while the node was up: ${r.error}`);
  if (r.outcome === 'vanished') hard.push('accepted, then status 404');
  if (r.anomaly) hard.push(r.anomaly);
  return hard;
}

function familyTable(records) {
  const rows = [];
  const total = { cases: 0, rejected: 0, completed: 0, failed: 0, timedOut: 0, parserCrash: 0, noReason: 0, raw: 0, s5xx: 0, crash: 0, stuck: 0, other: 0 };
  for (const family of FAMILIES) {
    const rs = records.filter((r) => r.family === family);
    if (!rs.length) continue;
    const row = {
      cases: rs.length,
      rejected: rs.filter((r) => r.outcome === 'rejected').length,
      completed: rs.filter((r) => r.outcome === 'completed').length,
      failed: rs.filter((r) => r.outcome === 'failed').length,
      timedOut: rs.filter((r) => r.timedOut).length,
      parserCrash: rs.filter((r) => r.parserCrash).length,
      noReason: rs.filter((r) => r.noReason).length,
      raw: rs.filter((r) => r.rawReason).length,
      s5xx: rs.filter((r) => r.server5xx.length).length,
      crash: rs.filter((r) => r.outcome === 'crash').length,
      stuck: rs.filter((r) => r.outcome === 'stuck').length,
      other: rs.filter((r) => ['transport-error', 'vanished'].includes(r.outcome) || r.anomaly).length,
    };
    for (const k of Object.keys(total)) total[k] += row[k];
    rows.push([family, row]);
  }
  rows.push(['**all**', total]);
  return [
    '| family | cases | rejected (4xx) | completed | failed | of which timed out | of which parse process crashed | failed w/o reason | raw reasons | 5xx | lost in node crash | stuck | other anomalies |',
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
    ...rows.map(
      ([f, r]) =>
        `| ${f} | ${r.cases} | ${r.rejected} | ${r.completed} | ${r.failed} | ${r.timedOut} | ${r.parserCrash} | ${r.noReason} | ${r.raw} | ${r.s5xx} | ${r.crash} | ${r.stuck} | ${r.other} |`,
    ),
  ];
}

function nodeTable(run) {
  const lives = run.lives;
  const peak = (k) => Math.max(0, ...lives.map((l) => l.sampler.peak[k]));
  const first = lives[0];
  const last = lives[lives.length - 1];
  const mainCrashes = run.crashes.filter((c) => c.phase === 'main').length;
  const isoCrashes = run.crashes.length - mainCrashes;
  return [
    '| duration | node starts | crashes (main run) | crashes (isolation replays) | peak RSS, node + children | peak RSS, node alone | fds before / max / after (node) | fds max (whole tree) |',
    '|---|--:|--:|--:|--:|--:|---|--:|',
    `| ${dur(run.durationMs)} | ${lives.length} | ${mainCrashes} | ${isoCrashes} | ${mib(peak('treeRssKb'))} | ${mib(peak('nodeRssKb'))} | ${first?.before.nodeFds ?? '–'} / ${peak('nodeFds')} / ${last?.after?.nodeFds ?? '–'} | ${peak('treeFds')} |`,
    '',
    `At the tree's peak: ${peakMembers(lives)}.`,
  ];
}

/** The processes of the tree at its largest, grouped by command name. */
function peakMembers(lives) {
  const life = lives.reduce((a, b) => (b.sampler.peak.treeRssKb > (a?.sampler.peak.treeRssKb ?? -1) ? b : a), null);
  if (!life?.sampler.peakMembers.length) return 'no sample';
  const groups = new Map();
  for (const m of life.sampler.peakMembers) {
    const g = groups.get(m.comm) ?? { n: 0, kb: 0 };
    g.n++;
    g.kb += m.rssKb;
    groups.set(m.comm, g);
  }
  const who = [...groups]
    .sort((a, b) => b[1].kb - a[1].kb)
    .map(([comm, g]) => `${comm} ×${g.n} ${mib(g.kb)}`)
    .join(', ');
  const cases = life.sampler.peakContext?.length ? `; cases in flight then: ${life.sampler.peakContext.join(', ')}` : '';
  return who + cases;
}

function crashSection(run) {
  if (!run.crashes.length) return ['No node crashes.'];
  const culprits = new Set(run.isolation.filter((r) => r.outcome === 'crash').map((r) => `${r.seed}:${r.index}`));
  const out = [];
  for (const c of run.crashes) {
    out.push(`- crash #${c.id} (${c.phase}, node #${c.nodeStart}, ${c.at}): ${c.reason}; peak tree RSS ${mib(c.peakTreeRssKb)}`);
    if (c.fatal) out.push(`  - log: \`${c.fatal.slice(0, 200).replace(/`/g, "'")}\``);
    for (const r of c.inFlight) {
      const mark = culprits.has(`${r.seed}:${r.index}`)
        ? ' — **crashes the node alone**'
        : run.isolation.some((i) => i.seed === r.seed && i.index === r.index)
          ? ' — fine alone'
          : '';
      out.push(`  - in flight: \`${replayCommand(r)}\` ${r.family} ${r.seedFile}; ${r.mutation}${mark}`);
    }
  }
  return out;
}

function rawReasonSection(records) {
  const out = [];
  for (const family of FAMILIES) {
    const rs = records.filter((r) => r.family === family && r.rawReason);
    if (!rs.length) continue;
    const groups = new Map();
    for (const r of rs) {
      const k = reasonShape(r.rawReason);
      if (!groups.has(k)) groups.set(k, []);
      groups.get(k).push(r);
    }
    out.push(`- **${family}** (${rs.length}):`);
    for (const [, g] of [...groups].sort((a, b) => b[1].length - a[1].length).slice(0, 8)) {
      const r = g[0];
      out.push(
        `  - ${g.length}× \`${r.rawReason.slice(0, 180).replace(/`/g, "'")}\` — e.g. \`--seed ${r.seed} --case ${r.index}\` (${r.seedFile}; ${r.mutation})`,
      );
    }
  }
  return out.length ? out : ['None.'];
}

function timedOutSection(records) {
  const rs = records.filter((r) => r.timedOut);
  return rs.length ? rs.map((r) => `- \`${replayCommand(r)}\` ${r.family} ${r.seedFile}; ${r.mutation}; ${JSON.stringify(r.query)}`) : ['None.'];
}

function parserCrashSection(records) {
  const rs = records.filter((r) => r.parserCrash);
  return rs.length ? rs.map((r) => `- \`${replayCommand(r)}\` ${r.family} ${r.seedFile}; ${r.mutation}: ${r.error.message}`) : ['None.'];
}

function rejectedSection(records) {
  const codes = new Map();
  for (const r of records.filter((x) => x.outcome === 'rejected'))
    codes.set(`${r.uploadStatus} ${r.rejectCode}`, (codes.get(`${r.uploadStatus} ${r.rejectCode}`) ?? 0) + 1);
  return codes.size ? [[...codes].map(([k, v]) => `${k}: ${v}`).join(', ')] : ['None.'];
}

export function summaryMarkdown(run, { title = 'docparse fuzz', command = '' } = {}) {
  const records = run.records;
  const hard = [...records, ...run.isolation].flatMap((r) =>
    findingsOf(r)
      .filter((f) => !f.startsWith('in flight'))
      .map((f) => `- \`${replayCommand(r)}\` ${r.family} ${r.seedFile}; ${r.mutation}: ${f}`),
  );
  const isolationNote = run.isolation.length
    ? [`Isolation replays (each case in flight at a crash, alone): ${run.isolation.map((r) => `${r.seed}:${r.index} → ${r.outcome}`).join(', ')}`]
    : [];
  return [
    `## ${title}`,
    '',
    `- started ${run.startedAt}; ${command ? `\`${command}\`` : ''}`,
    `- seed pool: ${run.poolSummary}`,
    `- per-case log (cases.jsonl) and node logs: ${run.o.outDir}`,
    `- load (uptime) at the end: ${run.loadAtEnd}`,
    '',
    ...familyTable(records),
    '',
    ...nodeTable(run),
    '',
    '### Crashes',
    ...crashSection(run),
    ...isolationNote,
    '',
    '### Stuck jobs, 5xx, failures without a reason, other anomalies',
    ...(hard.length ? hard : ['None.']),
    ...(run.orphan5xx.length ? [`- 5xx outside any case: ${run.orphan5xx.map((e) => `${e.what} ${e.status}`).join(', ')}`] : []),
    '',
    '### Parse process crashed or was killed for memory (the job failed with that reason; the node stayed up)',
    ...parserCrashSection([...records, ...run.isolation]),
    '',
    '### Timed out (failed at the task timeout; slow inputs, not findings)',
    ...timedOutSection(records),
    '',
    '### Raw reasons (JavaScript errors as the failure reason), by family',
    ...rawReasonSection(records),
    '',
    '### Uploads refused (4xx), by code',
    ...rejectedSection(records),
    '',
  ].join('\n');
}
