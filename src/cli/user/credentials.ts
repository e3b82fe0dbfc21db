// Where `docparse parse|status|result` find the API and the app's credentials: the
// environment (DOCPARSE_URL, DOCPARSE_CLIENT_ID, DOCPARSE_CLIENT_SECRET) first, then a
// config file, --config or ~/.config/docparse/config.json ($XDG_CONFIG_HOME honoured):
//   {"url": "https://docparse.example.com", "clientId": "…", "clientSecret": "…"}
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UsageError } from '../command-values.js';

export interface UserCredentials {
  url: string;
  clientId: string;
  clientSecret: string;
}

export function defaultConfigPath(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_CONFIG_HOME?.trim() || path.join(os.homedir(), '.config');
  return path.join(base, 'docparse', 'config.json');
}

function readConfigFile(file: string, required: boolean): Partial<UserCredentials> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if (!required && (err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new UsageError(`cannot read the config file ${file}: ${(err as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError(`the config file ${file} is not JSON`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new UsageError(`the config file ${file} must hold a JSON object`);
  const o = parsed as Record<string, unknown>;
  const str = (k: string) => (typeof o[k] === 'string' && (o[k] as string).trim() ? (o[k] as string).trim() : undefined);
  return { url: str('url'), clientId: str('clientId'), clientSecret: str('clientSecret') };
}

/** The environment over the config file; a missing piece is a usage error naming both places. */
export function resolveCredentials(env: NodeJS.ProcessEnv, configFile: string | undefined): UserCredentials {
  const file = configFile ?? defaultConfigPath(env);
  const fromFile = readConfigFile(file, configFile !== undefined);
  const pick = (name: string, k: keyof UserCredentials) => env[name]?.trim() || fromFile[k];
  const got = {
    url: pick('DOCPARSE_URL', 'url'),
    clientId: pick('DOCPARSE_CLIENT_ID', 'clientId'),
    clientSecret: pick('DOCPARSE_CLIENT_SECRET', 'clientSecret'),
  };
  const missing = (
    [
      ['DOCPARSE_URL', 'url'],
      ['DOCPARSE_CLIENT_ID', 'clientId'],
      ['DOCPARSE_CLIENT_SECRET', 'clientSecret'],
    ] as const
  ).filter(([, k]) => !got[k]);
  if (missing.length) {
    throw new UsageError(`missing ${missing.map(([e, k]) => `${e} (or "${k}" in ${file})`).join(', ')}`);
  }
  if (!/^https?:\/\/[^/]/.test(got.url!))
    throw new UsageError(`DOCPARSE_URL must be the API's base URL, e.g. https://docparse.example.com (got ${JSON.stringify(got.url)})`);
  return got as UserCredentials;
}
