// Import boundaries. The service is built in floors; a module may import its own folder and
// the floors below it, never a floor above or a neighbour on its own floor. Bottom up:
const FLOORS = [
  // What everything may use: the problem and job-failure codes, logging, sealing secrets,
  // the outbound address policy, the data dir's own files (lock, credential, master key).
  ['errors', 'log.ts', 'crypto', 'outbound', 'data-dir'],
  // The parsers (and their kit); the SQL client; the HTTP front; the leased outboxes' pass loop.
  ['formats', 'db', 'http', 'outbox'],
  // The service's view of the engines; job state, queue and counters; the outbox.
  ['engines', 'jobs', 'mail'],
  // Tenants, apps, plans, usage, members: the control plane. The node's Prometheus metrics,
  // counted in place by the HTTP front's observer, intake and the worker loop.
  ['tenancy', 'metrics'],
  // Tokens and keys; blob storage (the node's, a tenant's).
  ['identity', 'storage'],
  // Environment → settings.
  ['config.ts'],
  // Parsing jobs: the worker loop, the parsing process, retention.
  ['pipeline'],
  // Signed webhooks: the job-end watcher, the delivery outbox and its sender.
  ['webhooks'],
  // The parsing API: uploads, documents, health.
  ['api'],
  // The SDK for API users (import { DocparseClient } from 'docparse'): the server's schemas
  // as types only (sdk-types-only below), so it loads nothing of the server.
  ['sdk'],
  // The management API and its dependencies.
  ['manage'],
  // The dashboard (its pages call the management API in-process).
  ['dashboard'],
  // One node wired together.
  ['node.ts'],
  // The `docparse` commands: serve, admin.
  ['cli'],
  ['main.ts'],
  ['bin.ts'],
];

const pathOf = (place) => (place.endsWith('.ts') ? `${place.replace(/\./g, '\\.')}$` : `${place}/`);
const anyOf = (places) => `^src/(${places.map(pathOf).join('|')})`;

/** "<place> imports only itself and the floors below": one rule per folder or file. */
const floorRules = FLOORS.flatMap((floor, level) =>
  floor.map((place) => ({
    name: `floor:${place}`,
    severity: 'error',
    comment: `${place} is on floor ${level + 1} of .dependency-cruiser.cjs: it may import itself and ${
      level === 0 ? 'nothing else of the service' : FLOORS.slice(0, level).flat().join(', ')
    }.`,
    from: { path: anyOf([place]) },
    to: { path: '^src/', pathNot: anyOf([place, ...FLOORS.slice(0, level).flat()]) },
  })),
);

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'An import cycle makes load order matter and the modules impossible to take apart.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'every-module-on-a-floor',
      severity: 'error',
      comment: 'A new top-level folder or file of src/ must be given its floor in .dependency-cruiser.cjs.',
      from: { path: '^src/', pathNot: anyOf(FLOORS.flat()) },
      to: {},
    },
    ...floorRules,
    {
      name: 'sdk-types-only',
      severity: 'error',
      comment:
        "The SDK runs in browsers and in users' programs: it may take the server's schemas and codes as types (import type), never load a module of the server.",
      from: { path: '^src/sdk/' },
      to: { path: '^src/', pathNot: '^src/sdk/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'sdk-browser-safe',
      severity: 'error',
      comment: "Only src/sdk/node.ts ('docparse/node') may use Node's own modules; the rest of the SDK runs in browsers.",
      from: { path: '^src/sdk/', pathNot: '^src/sdk/node\\.ts$' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'formats-stand-alone',
      severity: 'error',
      comment:
        'Parsers get what they need from src/formats/kit or as arguments (ParseInput: settings, units, embedded parsers); only the error catalogue lies below them. The service imports formats, never the other way.',
      from: { path: '^src/formats/' },
      to: { path: '^src/', pathNot: '^src/(formats/|errors/catalogue\\.ts$)' },
    },
    {
      name: 'errors-catalogue-at-the-bottom',
      severity: 'error',
      comment: 'The catalogue is read by every floor, so it imports nothing of the service.',
      from: { path: '^src/errors/catalogue\\.ts$' },
      to: { path: '^src/' },
    },
    {
      name: 'engines-above-formats-only',
      severity: 'error',
      comment:
        "Engine discovery reads the families' declarations and the engine loaders; it answers uploads with the catalogue's problems, and reaches no further into the service.",
      from: { path: '^src/engines/' },
      to: { path: '^src/', pathNot: '^src/(engines/|formats/|errors/catalogue\\.ts$|http/problem\\.ts$)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
