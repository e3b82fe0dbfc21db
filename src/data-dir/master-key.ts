// The master key (storage credentials, signing keys, CSRF and upload-URL keys are sealed or
// derived under it): configured, or generated once into the data dir for the embedded default.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

export async function resolveMasterKey(config: { masterKey: string | null; dataDir: string }): Promise<string> {
  if (config.masterKey) return config.masterKey;
  const file = path.join(config.dataDir, 'master.key');
  try {
    return (await fs.readFile(file, 'utf8')).trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const key = randomBytes(32).toString('base64url');
  await fs.writeFile(file, key + '\n', { mode: 0o600, flag: 'wx' }).catch(async (err) => {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  });
  return (await fs.readFile(file, 'utf8')).trim();
}
