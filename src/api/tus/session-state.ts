// What this process keeps of a resumable session between its requests: the running SHA-256
// of the bytes staged so far (a hash state cannot be stored, so it lives here), and a queue
// that lets one request at a time touch the session's staged bytes. The staged bytes
// themselves are in the blob store: after a restart, or when another node took some of the
// PATCHes, the running hash is missing and the SHA-256 is computed again from the stored file
// once it is whole.
import { createHash, type Hash } from 'node:crypto';

/** Sessions whose running hash is kept at once; the oldest go first past it (they are computed again if needed). */
const MAX_SESSIONS = 10_000;

interface Running {
  offset: number;
  hash: Hash;
  /** Epoch ms after which the session cannot be used. */
  expiresAt: number;
}

export class ResumableSessions {
  private readonly running = new Map<string, Running>();
  private readonly queues = new Map<string, Promise<unknown>>();

  /**
   * A hash to continue at offset: a copy of the running one (the original stays valid if
   * this request's bytes are dropped), a new one at 0, or null when this process does not
   * hold the session's hash at that offset.
   */
  hashAt(session: string, offset: number): Hash | null {
    if (offset === 0) return createHash('sha256');
    const r = this.running.get(session);
    return r && r.offset === offset ? r.hash.copy() : null;
  }

  save(session: string, offset: number, hash: Hash, expiresAt: number): void {
    this.running.delete(session);
    const now = Date.now();
    for (const [k, r] of this.running) {
      if (this.running.size < MAX_SESSIONS && r.expiresAt > now) break;
      this.running.delete(k);
    }
    this.running.set(session, { offset, hash, expiresAt });
  }

  drop(session: string): void {
    this.running.delete(session);
  }

  /** Runs fn after the session's earlier requests in this process have finished (a cut-off PATCH still storing its bytes). */
  async exclusive<T>(session: string, fn: () => Promise<T>): Promise<T> {
    const before = this.queues.get(session) ?? Promise.resolve();
    const mine = before.catch(() => {}).then(fn);
    this.queues.set(session, mine);
    try {
      return await mine;
    } finally {
      if (this.queues.get(session) === mine) this.queues.delete(session);
    }
  }
}
