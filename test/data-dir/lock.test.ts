// The data dir lock on its own: who counts as a live holder, what is taken over, and that
// processes racing for a stale lock end with exactly one holder.
import fs from 'node:fs/promises';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { REPO_ROOT, tempDir } from '../helpers/http.js';
import { acquireDataDirLock, DataDirLockedError, readDataDirLock, tryAcquireDataDirLock, type DataDirLock } from '../../src/data-dir/lock.js';
import { deadPid, exists, lockFile, writeLock } from '../manage/cli.js';

vi.setConfig({ testTimeout: 60_000 });

const dirs: string[] = [];
const children: ChildProcess[] = [];
const held: DataDirLock[] = [];

async function newDir(): Promise<string> {
  const d = await tempDir('dp-lock-');
  dirs.push(d);
  return d;
}

async function take(dir: string): Promise<DataDirLock> {
  const lock = await acquireDataDirLock(dir, 'admin');
  held.push(lock);
  return lock;
}

/** A live process of this machine other than this one. */
async function sleeper(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
  children.push(child);
  await new Promise((r) => child.once('spawn', r));
  return child;
}

afterEach(async () => {
  for (const l of held.splice(0)) await l.release();
});
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await Promise.all(dirs.map((d) => fs.rm(d, { recursive: true, force: true })));
});

describe('data dir lock', () => {
  it('is a 0600 file naming this process; a second holder in the same process is refused; release deletes it', async () => {
    const dir = await newDir();
    const lock = await take(dir);
    const record = JSON.parse(await fs.readFile(lockFile(dir), 'utf8'));
    expect(record).toMatchObject({ pid: process.pid, role: 'admin', host: null, port: null, manageUrl: null });
    expect((await fs.stat(lockFile(dir))).mode & 0o777).toBe(0o600);

    const again = await tryAcquireDataDirLock(dir, 'node');
    expect('holder' in again && again.holder.pid).toBe(process.pid);
    await lock.update({ host: '0.0.0.0', port: 8080, manageUrl: 'http://127.0.0.1:9' });
    expect(await readDataDirLock(dir)).toMatchObject({ pid: process.pid, port: 8080, manageUrl: 'http://127.0.0.1:9', foreign: false });

    await lock.release();
    expect(await exists(lockFile(dir))).toBe(false);
    expect(await readDataDirLock(dir)).toBeNull();
    await take(dir);
  });

  it('a live process holding it: refused with its pid and the data dir', async () => {
    const dir = await newDir();
    const child = await sleeper();
    await writeLock(dir, { pid: child.pid!, startedAt: new Date(Date.now() - 1000).toISOString(), manageUrl: 'http://127.0.0.1:9' });
    const err = await acquireDataDirLock(dir, 'node').catch((e) => e);
    expect(err).toBeInstanceOf(DataDirLockedError);
    expect(err.message).toContain(`pid ${child.pid}`);
    expect(err.message).toContain(`data dir ${path.resolve(dir)}`);
    expect(err.holder).toMatchObject({ pid: child.pid, foreign: false });
  });

  it('taken over: a pid that is gone, a pid now used by a younger process, an earlier life of this pid, debris', async () => {
    const gone = await newDir();
    await writeLock(gone, { pid: await deadPid() });
    await take(gone);

    const reused = await newDir();
    const child = await sleeper();
    // The lock's holder started an hour before the process that has this pid now.
    await writeLock(reused, { pid: child.pid!, startedAt: new Date(Date.now() - 3600_000).toISOString() });
    await take(reused);

    const earlierLife = await newDir();
    await writeLock(earlierLife, { pid: process.pid });
    await take(earlierLife);

    const debris = await newDir();
    await fs.writeFile(lockFile(debris), '{"pid": 12', { mode: 0o600 });
    const old = new Date(Date.now() - 10_000);
    await fs.utimes(lockFile(debris), old, old);
    await take(debris);
    for (const d of [gone, reused, earlierLife, debris]) expect(JSON.parse(await fs.readFile(lockFile(d), 'utf8')).pid).toBe(process.pid);
  });

  it('a holder in another host, container or boot counts while it touches the file, and is taken over when it stops', async () => {
    const dir = await newDir();
    await writeLock(dir, { pid: 1, scope: 'linux:another-boot:pid:[1]' });
    const got = await tryAcquireDataDirLock(dir, 'admin');
    expect('holder' in got && got.holder).toMatchObject({ pid: 1, foreign: true });
    expect(String(new DataDirLockedError(dir, (got as { holder: any }).holder).message)).toMatch(/another host, container or boot/);

    const quiet = new Date(Date.now() - 60_000);
    await fs.utimes(lockFile(dir), quiet, quiet);
    await take(dir);
  });

  it('a release leaves a lock file that is no longer its own', async () => {
    const dir = await newDir();
    const lock = await take(dir);
    const other = await writeLock(dir, { pid: await deadPid() });
    await lock.release();
    expect(await fs.readFile(lockFile(dir), 'utf8')).toBe(other);
  });

  it('processes racing for a stale lock: exactly one takes it', async () => {
    const modulePath = path.join(REPO_ROOT, 'dist/data-dir/lock.js');
    for (let round = 0; round < 3; round++) {
      const dir = await newDir();
      await writeLock(dir, { pid: await deadPid() });
      const script = `
        const { tryAcquireDataDirLock } = await import(${JSON.stringify(modulePath)});
        const got = await tryAcquireDataDirLock(${JSON.stringify(dir)}, 'admin');
        console.log('lock' in got ? 'won' : 'lost');
        if ('lock' in got) { await new Promise((r) => setTimeout(r, 1500)); await got.lock.release(); }`;
      const outcomes = await Promise.all(
        Array.from(
          { length: 6 },
          () =>
            new Promise<string>((resolve) => {
              const c = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
              let out = '';
              c.stdout!.on('data', (d) => (out += d));
              c.once('close', () => resolve(out.trim()));
            }),
        ),
      );
      expect(outcomes.sort(), `round ${round}`).toEqual(['lost', 'lost', 'lost', 'lost', 'lost', 'won']);
      expect(await exists(lockFile(dir))).toBe(false);
      expect(await exists(`${lockFile(dir)}.takeover`)).toBe(false);
    }
  });

  it('attempts within one process at once: exactly one takes it, even over an earlier life of this pid', async () => {
    for (const stale of [false, true]) {
      const dir = await newDir();
      if (stale) await writeLock(dir, { pid: process.pid });
      const outcomes = await Promise.all(Array.from({ length: 5 }, () => tryAcquireDataDirLock(dir, 'node')));
      const locks = outcomes.flatMap((o) => ('lock' in o ? [o.lock] : []));
      held.push(...locks);
      expect(locks, `stale: ${stale}`).toHaveLength(1);
      for (const o of outcomes) if ('holder' in o) expect(o.holder.pid).toBe(process.pid);
    }
  });

  it('a process that exits without releasing frees its lock', async () => {
    const dir = await newDir();
    const modulePath = path.join(REPO_ROOT, 'dist/data-dir/lock.js');
    const script = `
      const { acquireDataDirLock } = await import(${JSON.stringify(modulePath)});
      await acquireDataDirLock(${JSON.stringify(dir)}, 'node');
      console.log('held');
      process.exit(3);`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    const code = await new Promise((r) => child.once('close', r));
    expect([out.trim(), code]).toEqual(['held', 3]);
    expect(await exists(lockFile(dir))).toBe(false);
  });
});
