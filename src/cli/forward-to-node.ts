// `docparse admin` while a node holds the data dir: the command goes to that node's local
// management endpoint (URL from the lock file, credential from the data dir) and its answer
// is printed as is. The CLI never opens the database then; when it cannot reach the node it
// says so and changes nothing.
import type { LockHolder } from '../data-dir/lock.js';
import { LOCAL_ADMIN_PATH } from '../manage/local-admin-routes.js';
import { credentialFilePath, readOperatorCredential } from '../data-dir/operator-credential.js';
import type { AdminResult } from './admin-command.js';

export interface CliOutput {
  out(line: string): void;
  err(line: string): void;
}

/** Longest wait for the node's answer: a command may check a tenant's S3 bucket. */
const ANSWER_TIMEOUT_MS = 120_000;

const isLines = (v: unknown): v is string[] => Array.isArray(v) && v.every((l) => typeof l === 'string');

function isAdminResult(v: unknown): v is AdminResult {
  const r = v as AdminResult;
  return typeof r === 'object' && r !== null && Number.isInteger(r.exitCode) && isLines(r.stdout) && isLines(r.stderr);
}

/** Why a fetch failed, in a few words (ECONNREFUSED, a timeout, …). */
function failureReason(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err as Error).message;
}

/** Returns the exit code: the node's, or 1 when the command could not be handed to it. */
export async function forwardToNode(dataDir: string, node: LockHolder, args: string[], io: CliOutput): Promise<number> {
  const who = `docparse serve (pid ${node.pid})`;
  const refuse = (why: string) => {
    io.err(`docparse admin: ${why}`);
    return 1;
  };
  let credential: string;
  try {
    credential = await readOperatorCredential(dataDir);
  } catch (err) {
    return refuse(`${who} holds data dir ${dataDir}, but ${(err as Error).message}. Nothing was changed.`);
  }
  const url = new URL(LOCAL_ADMIN_PATH, node.manageUrl!);
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${credential}`, 'content-type': 'application/json' },
      body: JSON.stringify({ args }),
      signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS),
    });
  } catch (err) {
    if ((err as Error).name === 'TimeoutError') {
      return refuse(
        `${who} holding data dir ${dataDir} did not answer at ${url} within ${ANSWER_TIMEOUT_MS / 1000} s. ` +
          'The command may or may not have run there: check (e.g. with a list command) before repeating it.',
      );
    }
    return refuse(
      `${who} holds data dir ${dataDir} but does not answer at ${node.manageUrl} (${failureReason(err)}). ` +
        'Nothing was changed: a data dir a live node holds is never opened by the CLI. Try again once the node answers, or stop it.',
    );
  }
  const body: unknown = await res.json().catch(() => null);
  if (res.status === 200 && isAdminResult(body)) {
    for (const line of body.stdout) io.out(line);
    for (const line of body.stderr) io.err(line);
    return body.exitCode;
  }
  if (res.status === 401) {
    return refuse(
      `${who} refused the operator credential in ${credentialFilePath(dataDir)} ` + '(a node makes a new one on every start: try again). Nothing was changed.',
    );
  }
  const detail = (body as { detail?: string } | null)?.detail;
  return refuse(`${who} answered ${res.status}${detail ? `: ${detail}` : ''}.`);
}
