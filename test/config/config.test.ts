// Configuration: defaults, every bad value reported by name at boot, and the CLI refusing to
// start half-configured.
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { describe, expect, it, vi } from 'vitest';
import { ALL_ROLES, CONFIG_DOCS, ConfigError, loadConfig } from '../../src/config.js';
import { DEFAULT_PARSER_SETTINGS } from '../../src/formats/settings.js';
import { REPO_ROOT, cliEntry } from '../helpers/http.js';

// Real sockets and processes: independent of the runner's default timeouts.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as ConfigError).problems;
  }
  throw new Error(`expected ${JSON.stringify(env)} to be refused`);
}

describe('loadConfig', () => {
  it('has working defaults with an empty environment', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      dataDir: path.resolve('./data'),
      databaseUrl: null,
      redisUrl: null,
      baseUrl: 'http://localhost:8080',
      authUrl: 'http://localhost:8080',
      dashboardUrl: 'http://localhost:8080/dashboard',
      region: 'local',
      seedDemo: true,
      retentionSeconds: 10800,
      workerThreads: os.availableParallelism(),
      maxHeaderBytes: 16384,
      shutdownGraceSeconds: 30,
      trustProxy: false,
      logLevel: 'info',
      roles: ALL_ROLES,
    });
    expect(c.heavySlots).toBeGreaterThanOrEqual(1);
    expect(c.heavySlots).toBeLessThanOrEqual(c.workerThreads);
  });

  it('reads every documented variable', () => {
    const c = loadConfig({
      PORT: '9000',
      HOST: '0.0.0.0',
      DOCPARSE_DATA_DIR: '/tmp/x',
      DOCPARSE_BASE_URL: 'https://api.example.com/',
      DOCPARSE_AUTH_URL: 'https://auth.example.com',
      DOCPARSE_REGION: 'eu-west-1',
      DOCPARSE_NODE_ID: 'n1',
      DOCPARSE_WORKER_THREADS: '4',
      DOCPARSE_HEAVY_SLOTS: '1',
      DOCPARSE_MAX_HEADER_BYTES: '4096',
      DOCPARSE_TRUST_PROXY: 'yes',
      LOG_LEVEL: 'WARN',
      DOCPARSE_SEED_DEMO: 'false',
      DOCPARSE_SHUTDOWN_GRACE_SECONDS: '0',
    });
    expect(c).toMatchObject({
      port: 9000,
      host: '0.0.0.0',
      dataDir: '/tmp/x',
      baseUrl: 'https://api.example.com',
      authUrl: 'https://auth.example.com',
      dashboardUrl: 'https://api.example.com/dashboard',
      region: 'eu-west-1',
      nodeId: 'n1',
      workerThreads: 4,
      heavySlots: 1,
      maxHeaderBytes: 4096,
      trustProxy: true,
      logLevel: 'warn',
      seedDemo: false,
      shutdownGraceSeconds: 0,
    });
  });

  it("reads the parsers' settings and the engines' locations (handed to the parsing process as they are)", () => {
    expect(loadConfig({}).parsers).toEqual({ ...DEFAULT_PARSER_SETTINGS, engines: { ...DEFAULT_PARSER_SETTINGS.engines, searchPath: [] } });
    const c = loadConfig({
      DOCPARSE_ARCHIVE_MAX_BYTES: '1000',
      DOCPARSE_ARCHIVE_MAX_ENTRIES: '7',
      DOCPARSE_ARCHIVE_MAX_RATIO: '50',
      DOCPARSE_ARCHIVE_MAX_DEPTH: '0',
      DOCPARSE_CAD_MAX_BYTES: '123',
      DOCPARSE_PARQUET_MAX_ROW_GROUP_BYTES: '456',
      DOCPARSE_OFFICE_RENDER: 'AUTO',
      DOCPARSE_OFFICE_MAX_PART_MB: '2',
      DOCPARSE_OFFICE_MAX_SHEET_XML_MB: '3',
      DOCPARSE_SOFFICE_TIMEOUT_MS: '5000',
      DOCPARSE_TASK_MAX_MEMORY_MB: '512',
      DOCPARSE_GIS_MAX_INLINE_FEATURES: '9',
      DOCPARSE_GIS_FGB: 'off',
      DOCPARSE_PDFIUM_OPTIMIZED: 'false',
      DOCPARSE_SOFFICE: '/opt/lo/soffice',
      DOCPARSE_TESSDATA_DIR: '/models',
      TESSDATA_PREFIX: '/usr/local/share/tessdata',
      PATH: '/a:/b',
    });
    expect(c.parsers).toEqual({
      archive: { maxBytes: 1000, maxEntries: 7, maxRatio: 50, maxDepth: 0 },
      cad: { maxBytes: 123 },
      parquet: { maxRowGroupBytes: 456 },
      office: { render: 'auto', maxPartBytes: 2 * 1024 * 1024, maxSheetXmlBytes: 3 * 1024 * 1024, convertTimeoutMs: 5000 },
      gis: { maxInlineFeatures: 9, flatGeobuf: false },
      pdf: { optimizedPdfium: false },
      memory: { maxBytes: 512 * 1024 * 1024 },
      engines: { soffice: '/opt/lo/soffice', tessdataDir: '/models', tessdataPrefix: '/usr/local/share/tessdata', searchPath: ['/a', '/b'] },
    });
    expect(loadConfig({ DOCPARSE_OFFICE_RENDER: '0' }).parsers.office.render).toBe('off');
  });

  it('still reads the GIS-only names of the archive limits, the new names first', () => {
    const legacy = { DOCPARSE_GIS_MAX_UNZIPPED_BYTES: '1000', DOCPARSE_GIS_MAX_ZIP_ENTRIES: '10', DOCPARSE_GIS_MAX_ZIP_RATIO: '20' };
    expect(loadConfig(legacy).parsers.archive).toMatchObject({ maxBytes: 1000, maxEntries: 10, maxRatio: 20 });
    expect(loadConfig({ ...legacy, DOCPARSE_ARCHIVE_MAX_BYTES: '5000' }).parsers.archive.maxBytes).toBe(5000);
    // A bad value under the old name is refused like one under the new.
    expect(problemsOf({ DOCPARSE_GIS_MAX_ZIP_RATIO: 'lots' })).toEqual([expect.stringContaining('DOCPARSE_GIS_MAX_ZIP_RATIO="lots" is not a whole number')]);
  });

  it('documents every variable it reads', () => {
    const names = CONFIG_DOCS.map((d) => d.name);
    for (const n of [
      'PORT',
      'HOST',
      'DOCPARSE_DATA_DIR',
      'DATABASE_URL',
      'REDIS_URL',
      'DOCPARSE_MAX_HEADER_BYTES',
      'DOCPARSE_SHUTDOWN_GRACE_SECONDS',
      'LOG_LEVEL',
    ]) {
      expect(names).toContain(n);
    }
  });

  const bad: [Record<string, string>, RegExp][] = [
    [{ PORT: 'abc' }, /PORT="abc" is not a whole number/],
    [{ PORT: '70000' }, /PORT=70000 is out of range \(expected 0–65535\)/],
    [{ PORT: '-1' }, /PORT="-1" is not a whole number/],
    [{ HOST: 'http://0.0.0.0' }, /HOST=.* is not a host name or IP address/],
    [{ DATABASE_URL: 'mysql://x/y', DOCPARSE_MASTER_KEY: 'k'.repeat(32) }, /DATABASE_URL must use postgres:\/\/ or postgresql:\/\//],
    [{ DATABASE_URL: 'postgres://x/y' }, /DOCPARSE_MASTER_KEY is required with DATABASE_URL/],
    [{ REDIS_URL: 'not a url' }, /REDIS_URL="not a url" is not a valid URL/],
    [{ DOCPARSE_BASE_URL: 'ftp://x' }, /DOCPARSE_BASE_URL must use http:\/\/ or https:\/\//],
    [{ DOCPARSE_REGION: 'eu west' }, /DOCPARSE_REGION="eu west" must be letters, digits and dashes/],
    [{ DOCPARSE_DEMO_CLIENT_ID: 'a b' }, /DOCPARSE_DEMO_CLIENT_ID must be 3–128 characters/],
    [{ DOCPARSE_DEMO_CLIENT_SECRET: 'short' }, /DOCPARSE_DEMO_CLIENT_SECRET must be at least 16 characters/],
    [{ DOCPARSE_MASTER_KEY: 'short' }, /DOCPARSE_MASTER_KEY must be at least 32 characters/],
    [{ DOCPARSE_WORKER_THREADS: '0' }, /DOCPARSE_WORKER_THREADS=0 is out of range/],
    [{ DOCPARSE_WORKER_THREADS: '2', DOCPARSE_HEAVY_SLOTS: '3' }, /DOCPARSE_HEAVY_SLOTS=3 exceeds DOCPARSE_WORKER_THREADS=2/],
    [{ DOCPARSE_MAX_HEADER_BYTES: '10' }, /DOCPARSE_MAX_HEADER_BYTES=10 is out of range/],
    [{ DOCPARSE_DIRECT_UPLOAD_MAX_BYTES: '1000000000' }, /DOCPARSE_DIRECT_UPLOAD_MAX_BYTES=1000000000 is out of range/],
    [{ DOCPARSE_RETENTION_SECONDS: '1.5' }, /DOCPARSE_RETENTION_SECONDS="1.5" is not a whole number/],
    [{ DOCPARSE_TRUST_PROXY: 'maybe' }, /DOCPARSE_TRUST_PROXY="maybe" is not a boolean/],
    [{ DOCPARSE_SEED_DEMO: '2' }, /DOCPARSE_SEED_DEMO="2" is not a boolean/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL="loud" must be one of/],
    [{ DOCPARSE_GIS_MAX_INLINE_FEATURES: '0' }, /DOCPARSE_GIS_MAX_INLINE_FEATURES=0 is out of range/],
    [{ DOCPARSE_OFFICE_MAX_PART_MB: '1.5' }, /DOCPARSE_OFFICE_MAX_PART_MB="1.5" is not a whole number/],
    [{ DOCPARSE_ARCHIVE_MAX_DEPTH: '17' }, /DOCPARSE_ARCHIVE_MAX_DEPTH=17 is out of range \(expected 0–16\)/],
    [{ DOCPARSE_OFFICE_RENDER: 'sometimes' }, /DOCPARSE_OFFICE_RENDER="sometimes" must be always, auto or off/],
    [{ DOCPARSE_GIS_FGB: 'perhaps' }, /DOCPARSE_GIS_FGB="perhaps" is not a boolean/],
    [{ DOCPARSE_SOFFICE: 'soffice' }, /DOCPARSE_SOFFICE="soffice" must be an absolute path/],
  ];
  for (const [env, message] of bad) {
    it(`refuses ${JSON.stringify(env)}`, () => {
      const problems = problemsOf(env);
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(message);
    });
  }

  it('reports every bad value at once, one line each', () => {
    try {
      loadConfig({ PORT: 'x', LOG_LEVEL: 'loud', DOCPARSE_TRUST_PROXY: 'maybe' });
      expect.unreachable();
    } catch (e) {
      const err = e as ConfigError;
      expect(err.problems).toHaveLength(3);
      expect(err.message.split('\n')).toEqual([
        'Invalid configuration:',
        expect.stringContaining('PORT'),
        expect.stringContaining('LOG_LEVEL'),
        expect.stringContaining('DOCPARSE_TRUST_PROXY'),
      ]);
    }
  });
});

describe('docparse serve with a bad configuration', () => {
  it('exits with EX_CONFIG (78) and names each bad variable, without starting', async () => {
    const child = spawn(process.execPath, [cliEntry(), 'serve'], {
      cwd: REPO_ROOT,
      env: { ...process.env, PORT: 'eighty', DOCPARSE_WORKER_THREADS: '0', DOCPARSE_DATA_DIR: path.join(os.tmpdir(), 'dp-never-created') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    const code = await new Promise<number | null>((r) => child.once('close', (c) => r(c)));
    expect(code).toBe(78);
    expect(err).toContain('PORT="eighty" is not a whole number');
    expect(err).toContain('DOCPARSE_WORKER_THREADS=0 is out of range');
  });

  it('refuses an unknown role', async () => {
    const child = spawn(process.execPath, [cliEntry(), 'serve', '--role', 'chef'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    const code = await new Promise<number | null>((r) => child.once('close', (c) => r(c)));
    expect(code).toBe(78);
    expect(err).toMatch(/--role chef is not one of api, worker, auth/);
  });
});
