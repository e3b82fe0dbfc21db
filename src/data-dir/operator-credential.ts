// The operator credential: a random secret the node writes into its data dir (0600) and
// asks for on its local management endpoint. Whoever can read the data dir can administer
// the node anyway (it holds the database); the credential proves exactly that. A new one is
// made on every start and deleted on stop, so a copy never outlives the node it was for.
// The node keeps only its SHA-256 (the secret has 256 bits: no slow hash is needed).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

export const CREDENTIAL_FILE_NAME = 'operator.credential';

export function credentialFilePath(dataDir: string): string {
  return path.join(path.resolve(dataDir), CREDENTIAL_FILE_NAME);
}

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest();

export class OperatorCredential {
  private constructor(
    /** Where the secret was written; null for one only this process knows. */
    readonly file: string | null,
    private readonly hash: Buffer,
  ) {}

  /** A credential held in memory only: the CLI's own, for the listener it runs for one command. */
  static inMemory(): { credential: OperatorCredential; secret: string } {
    const secret = randomBytes(32).toString('base64url');
    return { credential: new OperatorCredential(null, sha256(secret)), secret };
  }

  /** Makes a new credential and writes it (0600, replacing the previous node's atomically). */
  static async create(dataDir: string): Promise<OperatorCredential> {
    const file = credentialFilePath(dataDir);
    const secret = randomBytes(32).toString('base64url');
    const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      // 'wx' with 0600: the secret is never in a file anyone else could open, even briefly.
      await fs.writeFile(tmp, secret + '\n', { flag: 'wx', mode: 0o600 });
      await fs.rename(tmp, file);
    } catch (err) {
      await fs.unlink(tmp).catch(() => {});
      throw err;
    }
    return new OperatorCredential(file, sha256(secret));
  }

  /** Constant-time check of a presented secret. */
  matches(presented: string): boolean {
    return timingSafeEqual(sha256(presented), this.hash);
  }

  /** Deletes the file if it still holds this credential. */
  async remove(): Promise<void> {
    const file = this.file;
    if (file === null) return;
    const current = await fs.readFile(file, 'utf8').catch(() => null);
    if (current !== null && this.matches(current.trim())) await fs.unlink(file).catch(() => {});
  }
}

/** The CLI's side: the credential of the node holding the data dir. Throws with the reason. */
export async function readOperatorCredential(dataDir: string): Promise<string> {
  const file = credentialFilePath(dataDir);
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const hint = code === 'EACCES' || code === 'EPERM' ? ': run docparse admin as the user that runs the node' : '';
    throw new Error(`cannot read the operator credential ${file} (${code ?? (err as Error).message})${hint}`, { cause: err });
  }
  const secret = text.trim();
  if (!secret) throw new Error(`the operator credential ${file} is empty`);
  return secret;
}
