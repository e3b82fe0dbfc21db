// The CLI keeps its access token between runs (spec token rule 1: not one per call, and a
// script running `docparse status` in a loop is many calls): one file per API and
// credentials (the secret is in the file's name hash, so a wrong or changed secret never
// borrows the token another one got) under $XDG_CACHE_HOME/docparse (~/.cache/docparse), readable by its owner only. A file that
// cannot be read or written is ignored: the CLI then fetches a token as if there were none.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { CachedToken, TokenCache } from '../../sdk/index.js';

export function tokenFilePath(env: NodeJS.ProcessEnv, c: { url: string; clientId: string; clientSecret: string }): string {
  const base = env.XDG_CACHE_HOME?.trim() || path.join(os.homedir(), '.cache');
  const key = createHash('sha256').update(`${c.url}\n${c.clientId}\n${c.clientSecret}`).digest('hex').slice(0, 32);
  return path.join(base, 'docparse', `token-${key}.json`);
}

export function tokenFile(file: string): TokenCache {
  return {
    async load() {
      try {
        const t = JSON.parse(await fs.readFile(file, 'utf8')) as Partial<CachedToken>;
        return typeof t.accessToken === 'string' && typeof t.expiresAt === 'number' ? { accessToken: t.accessToken, expiresAt: t.expiresAt } : null;
      } catch {
        return null;
      }
    },
    async save(token) {
      try {
        await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
        // Written aside and renamed, so a run reading it meanwhile never sees half a token.
        const tmp = `${file}.${process.pid}.tmp`;
        await fs.writeFile(tmp, JSON.stringify(token), { mode: 0o600 });
        await fs.rename(tmp, file);
      } catch {
        // a cache, not a requirement
      }
    },
  };
}
