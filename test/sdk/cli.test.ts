// `docparse parse|status|result|cancel` (the CLI for API users, built on the SDK), spawned as the
// compiled command against a real node: machine output, the summary, the exit code when a
// file fails, credentials from a config file, and the progress bars in a pseudo-terminal.
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEntry, freePort } from '../helpers/http.js';
import { createApp, createTestEnv, destroyTestEnv, startTestNode, type TestEnv, type TestNode } from '../helpers/node.js';

const CSV = 'city,lat,lon\nParis,48.85,2.35\nLyon,45.76,4.83\n';

let env: TestEnv;
let n: TestNode;
let dir: string;
let creds: Record<string, string>;

beforeAll(async () => {
  env = await createTestEnv('embedded');
  const port = await freePort();
  n = await startTestNode(env, { PORT: String(port), DOCPARSE_BASE_URL: `http://127.0.0.1:${port}` });
  const app = await createApp(n.node, {});
  creds = { DOCPARSE_URL: n.url, DOCPARSE_CLIENT_ID: app.clientId, DOCPARSE_CLIENT_SECRET: app.clientSecret };
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dp-cli-'));
  await fs.mkdir(path.join(dir, 'in'));
  await fs.writeFile(path.join(dir, 'in', 'paris.csv'), CSV);
  await fs.writeFile(path.join(dir, 'in', 'lyon.csv'), CSV.replace('Paris', 'Nice'));
  await fs.writeFile(path.join(dir, 'broken.pdf'), '%PDF-1.7\nthis is not a PDF body at all\n');
});

afterAll(async () => {
  await n?.close();
  if (env) await destroyTestEnv(env);
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the compiled `docparse` in dir, stdout and stderr piped (not a terminal). */
function docparse(args: string[], extraEnv: Record<string, string> = creds): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const childEnv: Record<string, string | undefined> = {
      ...process.env,
      ...extraEnv,
      HOME: dir,
      XDG_CONFIG_HOME: path.join(dir, 'xdg'),
      XDG_CACHE_HOME: path.join(dir, 'cache'),
    };
    for (const k of ['DOCPARSE_URL', 'DOCPARSE_CLIENT_ID', 'DOCPARSE_CLIENT_SECRET']) if (!(k in extraEnv)) delete childEnv[k];
    const child = spawn(process.execPath, [cliEntry(), ...args], { cwd: dir, env: childEnv });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('docparse parse', () => {
  it('--json: one line per file, one JSON result per input in --out, exit 1 when a file failed', async () => {
    const r = await docparse(['parse', 'in/*.csv', 'broken.pdf', '--csv-route', 'Tabular', '--pdf-mode', 'SingleColumn', '--out', 'out', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(1);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows.map((x) => [x.file, x.status, x.format])).toEqual([
      ['in/lyon.csv', 'completed', 'csv'],
      ['in/paris.csv', 'completed', 'csv'],
      ['broken.pdf', 'failed', 'pdf'],
    ]);
    expect(rows[2].error).toMatchObject({ code: expect.any(String) });
    expect((await fs.readdir(path.join(dir, 'out'))).sort()).toEqual(['lyon.csv.json', 'paris.csv.json']);
    const artifact = JSON.parse(await fs.readFile(path.join(dir, 'out', 'paris.csv.json'), 'utf8')) as { document_format: string; documentId: string };
    expect(artifact.document_format).toBe('csv');
    expect(artifact.documentId).toBe(rows[1].documentId);
  });

  it('not on a terminal: plain lines per step, then the summary table; exit 0 when all completed', async () => {
    const r = await docparse(['parse', 'in/paris.csv', '--csv-route', 'Tabular']);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines).toContain(`in/paris.csv: uploading ${Buffer.byteLength(CSV)} B`);
    expect(lines).toContain('in/paris.csv: completed');
    expect(r.stdout).not.toMatch(/\u001b\[/);
    const header = lines.findIndex((l) => /^FILE\s+FORMAT\s+UNITS\s+SECONDS\s+STATUS$/.test(l));
    expect(header).toBeGreaterThan(0);
    expect(lines[header + 1]).toMatch(/^in\/paris\.csv\s+csv\s+1\s+\d+\.\d\s+completed$/);
    expect(lines).toContain('1 completed, 0 failed');
  });

  it('a missing file or credential is a usage error (exit 2); wrong credentials exit 1 with the code', async () => {
    const missing = await docparse(['parse', 'nope.csv']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nope.csv: no such file');
    const noCreds = await docparse(['status', 'x'], {});
    expect(noCreds.code).toBe(2);
    expect(noCreds.stderr).toContain('missing DOCPARSE_URL');
    const wrong = await docparse(['status', 'x'], { ...creds, DOCPARSE_CLIENT_SECRET: 'wrong-secret-0123456789' });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('invalid_client (401)');
  });
});

describe('docparse status, result and cancel, credentials from a config file', () => {
  it('reads --config and the default ~/.config/docparse/config.json; status --json, result prints the artifact', async () => {
    const parsed = await docparse(['parse', 'in/lyon.csv', '--csv-route', 'Spatial', '--json']);
    const id = (JSON.parse(parsed.stdout) as { documentId: string }).documentId;
    const file = path.join(dir, 'creds.json');
    await fs.writeFile(file, JSON.stringify({ url: creds.DOCPARSE_URL, clientId: creds.DOCPARSE_CLIENT_ID, clientSecret: creds.DOCPARSE_CLIENT_SECRET }));

    const st = await docparse(['status', id, 'unknown-id', '--json', '--config', file], {});
    expect(st.code).toBe(1); // one id unknown
    const [known, unknown] = st.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(known).toMatchObject({ documentId: id, status: 'completed', format: 'csv' });
    expect(unknown).toMatchObject({ documentId: 'unknown-id', error: { code: 'document_not_found' } });

    await fs.mkdir(path.join(dir, 'xdg', 'docparse'), { recursive: true });
    await fs.copyFile(file, path.join(dir, 'xdg', 'docparse', 'config.json'));
    const human = await docparse(['status', id], {});
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(new RegExp(`^DOCUMENT\\s+STATUS\\s+FORMAT\\s+UNITS\\s+COMPLETED\\s+ERROR\\n${id}\\s+completed\\s+csv\\s+1\\s+\\S+Z\\n$`));

    const res = await docparse(['result', id], {});
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ documentId: id, document_format: 'csv', fileName: 'lyon.csv' });
    const gone = await docparse(['result', 'unknown-id'], {});
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('document_not_found (404)');

    // cancel: a finished job's result is deleted; an unknown id exits 1 and the others still go.
    const cancelled = await docparse(['cancel', id, 'unknown-id', '--json'], {});
    expect(cancelled.code).toBe(1);
    const [deleted, missing] = cancelled.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(deleted).toMatchObject({ documentId: id, status: 'completed', resultDeleted: true });
    expect(missing).toMatchObject({ documentId: 'unknown-id', error: { code: 'document_not_found' } });
    expect((await docparse(['result', id], {})).code).toBe(1);
    expect((await docparse(['cancel'], {})).code).toBe(2);
  });
});

describe('the token between runs', () => {
  it('is kept in ~/.cache/docparse (owner only) and reused by the next run; an expired one is replaced', async () => {
    const cacheDir = path.join(dir, 'cache', 'docparse');
    await fs.rm(cacheDir, { recursive: true, force: true });
    expect((await docparse(['status', 'some-id'])).code).toBe(1);
    const [name] = await fs.readdir(cacheDir);
    const file = path.join(cacheDir, name);
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    const first = JSON.parse(await fs.readFile(file, 'utf8')) as { accessToken: string; expiresAt: number };
    expect(first.expiresAt).toBeGreaterThan(Date.now());

    expect((await docparse(['status', 'some-id'])).code).toBe(1);
    expect(JSON.parse(await fs.readFile(file, 'utf8'))).toEqual(first); // no new token fetched

    await fs.writeFile(file, JSON.stringify({ ...first, expiresAt: Date.now() - 1000 }));
    expect((await docparse(['status', 'some-id'])).code).toBe(1);
    const renewed = JSON.parse(await fs.readFile(file, 'utf8')) as { accessToken: string; expiresAt: number };
    expect(renewed.accessToken).not.toBe(first.accessToken);
    expect(renewed.expiresAt).toBeGreaterThan(Date.now());
  });
});

describe('progress on a terminal', () => {
  it('draws one bar per file in a pseudo-terminal (script), bytes then state, then the summary', async () => {
    const cmd = [process.execPath, cliEntry(), 'parse', 'in/paris.csv', 'in/lyon.csv', '--csv-route', 'Tabular'].map((a) => `'${a}'`).join(' ');
    const r = await new Promise<Ran>((resolve, reject) => {
      const child = spawn('script', ['-qfec', cmd, '/dev/null'], {
        cwd: dir,
        env: { ...process.env, ...creds, TERM: 'xterm', COLUMNS: '120', XDG_CACHE_HOME: path.join(dir, 'cache') },
      });
      let stdout = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr: '' }));
    });
    expect(r.code).toBe(0);
    // cli-progress redraws in place: cursor movement and line clearing, which plain lines never use.
    expect(r.stdout).toMatch(/\u001b\[\d*[AG]|\u001b\[2K|\u001b\[0K/);
    expect(r.stdout).toMatch(/in\/paris\.csv\s+\[[█░]+\]\s+100% completed/);
    expect(r.stdout).toMatch(/in\/lyon\.csv\s+\[[█░]+\]\s+100% completed/);
    expect(r.stdout).toMatch(new RegExp(`\\d+ B/${Buffer.byteLength(CSV)} B`));
    expect(r.stdout).toMatch(/FILE\s+FORMAT\s+UNITS\s+SECONDS\s+STATUS/);
    expect(r.stdout).not.toContain('in/paris.csv: uploading');
  });
});
