// Helpers for tests of `docparse admin` as a real process next to a real node: run the CLI,
// ask for tokens, and write lock files by hand.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { REPO_ROOT, cliEntry } from '../helpers/http.js';
import { ownStartedAtMs, processScope } from '../../src/data-dir/process-liveness.js';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `node dist/bin.js admin …` with this environment only (no DATABASE_URL/REDIS_URL unless given). */
export function runCli(env: Record<string, string>, args: string[], timeoutMs = 90_000): Promise<CliRun> {
  const base = { ...process.env };
  delete base.DATABASE_URL;
  delete base.REDIS_URL;
  delete base.DOCPARSE_MASTER_KEY;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliEntry(), 'admin', ...args], {
      cwd: REPO_ROOT,
      env: { ...base, LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`docparse admin ${args.join(' ')} did not finish in ${timeoutMs} ms:\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs with --json, expects exit 0 and one JSON line. */
export async function cliJson<T = any>(env: Record<string, string>, ...args: string[]): Promise<T> {
  const r = await runCli(env, [...args, '--json']);
  if (r.code !== 0) throw new Error(`docparse admin ${args.join(' ')} exited ${r.code}:\n${r.stdout}\n${r.stderr}`);
  const lines = r.stdout.trim().split('\n');
  if (lines.length !== 1) throw new Error(`expected one JSON line, got:\n${r.stdout}`);
  return JSON.parse(lines[0]) as T;
}

export async function requestToken(url: string, clientId: string, clientSecret: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'Service.API', client_id: clientId, client_secret: clientSecret }),
  });
  return { status: res.status, body: await res.json() };
}

/** The claims of a JWT, unverified (the node verified it; the test reads what it says). */
export function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as Record<string, unknown>;
}

export const lockFile = (dataDir: string) => path.join(dataDir, 'docparse.lock');
export const credentialFile = (dataDir: string) => path.join(dataDir, 'operator.credential');

export async function readLock(dataDir: string): Promise<Record<string, any>> {
  return JSON.parse(await fs.readFile(lockFile(dataDir), 'utf8')) as Record<string, any>;
}

export async function exists(p: string): Promise<boolean> {
  return fs.stat(p).then(
    () => true,
    () => false,
  );
}

/** Writes a lock file by hand, naming `pid` as a node of this machine serving at manageUrl. */
export async function writeLock(
  dataDir: string,
  fields: { pid: number; startedAt?: string; manageUrl?: string | null; role?: string; scope?: string },
): Promise<string> {
  const record = {
    pid: fields.pid,
    role: fields.role ?? 'node',
    hostname: os.hostname(),
    scope: fields.scope ?? processScope(),
    startedAt: fields.startedAt ?? new Date(ownStartedAtMs()).toISOString(),
    host: '127.0.0.1',
    port: 1,
    manageUrl: fields.manageUrl ?? null,
  };
  const text = JSON.stringify(record) + '\n';
  await fs.writeFile(lockFile(dataDir), text, { mode: 0o600 });
  return text;
}

/** A pid that certainly ran on this machine and certainly no longer does. */
export async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((r) => child.once('close', r));
  return child.pid!;
}
