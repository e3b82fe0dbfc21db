// `docparse serve` as a person starts it: the compiled CLI in a session of its own, at a
// pseudo-terminal (util-linux `script`) or with no terminal at all, with nothing configured
// but its data dir (no identity provider, no database, no Redis); and `docparse admin` beside
// it. Needs the compiled CLI: `npm run build` first. stopServed() ends every node started here.
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { cliEntry, freePort, REPO_ROOT, waitFor } from '../../helpers/http.js';

const run = promisify(execFile);

export const hasScript = spawnSync('script', ['--version']).status === 0;

export interface ServedNode {
  url: string;
  /** Everything it wrote so far: at a terminal both streams arrive on `out`. */
  output(): { out: string; err: string };
}

const running: ChildProcess[] = [];

export async function serve(dataDir: string, opts: { terminal: boolean; seedDemo?: boolean }): Promise<ServedNode> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = {
    ...process.env,
    PORT: String(port),
    DOCPARSE_BASE_URL: url,
    DOCPARSE_DATA_DIR: dataDir,
    DOCPARSE_SEED_DEMO: String(opts.seedDemo ?? false),
    LOG_LEVEL: 'info',
  };
  for (const k of ['DOCPARSE_DEMO_CLIENT_SECRET', 'DOCPARSE_OIDC_CLIENT_ID', 'DOCPARSE_OIDC_CLIENT_SECRET', 'DATABASE_URL', 'REDIS_URL']) delete env[k];
  const command = [process.execPath, cliEntry(), 'serve', '--role', 'api,auth'];
  const child = opts.terminal
    ? spawn('script', ['-qfec', command.map((a) => `'${a}'`).join(' '), '/dev/null'], { cwd: REPO_ROOT, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] })
    : spawn(command[0], command.slice(1), { cwd: REPO_ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  running.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  await waitFor(async () => (await fetch(`${url}/health/live`).catch(() => null))?.ok, `docparse serve on ${url} (${err})`, 60_000);
  return { url, output: () => ({ out, err }) };
}

/** The one-time sign-in link the node showed at its terminal. */
export async function printedSignInLink(node: ServedNode): Promise<string> {
  const text = () => node.output().out.replace(/\r/g, '');
  return (await waitFor(() => /https?:\/\/\S+\/auth\/local\?token=[A-Za-z0-9_-]+/.exec(text())?.[0], 'the sign-in link')) as string;
}

/** Stops the nodes started here (SIGTERM to each one's process group) and waits for them. */
export async function stopServed(): Promise<void> {
  for (const c of running.splice(0)) {
    if (c.exitCode === null && c.signalCode === null) {
      const gone = new Promise((r) => c.once('close', r));
      process.kill(-c.pid!, 'SIGTERM');
      await gone;
    }
  }
}

/** Runs `docparse admin keys create-operator --name NAME` beside the node holding `dataDir` (the command goes to that node) and returns the key it printed. */
export async function createOperatorKey(dataDir: string, name: string): Promise<string> {
  const env = { ...process.env, DOCPARSE_DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
  const { stdout } = await run(process.execPath, [cliEntry(), 'admin', 'keys', 'create-operator', '--name', name], { cwd: REPO_ROOT, env });
  const key = /^\s+key: (dp_op_\S+)$/m.exec(stdout)?.[1];
  if (!key) throw new Error(`docparse admin keys create-operator printed no key:\n${stdout}`);
  return key;
}
