// One owner of configuration: src/config.ts reads the environment, the process entry points
// hand it to loadConfig, and everything else is given what it needs. Each other file below
// says why it touches process.env.
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const ALLOWED: Record<string, string> = {
  'src/config.ts': 'loadConfig reads the environment (its default argument)',
  'src/main.ts': 'the process entry point: loadConfig(process.env) for docparse admin',
  'src/cli/serve.ts': 'docparse serve: loadConfig(process.env)',
  'src/bin.ts': 'the process entry point',
  'src/cli/run-admin-cli.ts': "the admin CLI's own credential for a remote node (DOCPARSE_OPERATOR_KEY), beside --key",
  'src/http/uws.ts': "sets uWS's own variable (UWS_HTTP_MAX_HEADERS_SIZE) from the config before the native module loads",
  'src/formats/kit/soffice-env.ts': "passes the process's environment through to soffice (HOME and the headless plugin added)",
};

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(path.join(REPO, dir), { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((e) => (e.isDirectory() ? sourceFiles(`${dir}/${e.name}`) : Promise.resolve(e.name.endsWith('.ts') ? [`${dir}/${e.name}`] : []))),
  );
  return nested.flat();
}

describe('the environment', () => {
  it('is read by src/config.ts and the entry points only', async () => {
    const readers: string[] = [];
    for (const file of await sourceFiles('src')) {
      if (/\bprocess\.env\b/.test(await readFile(path.join(REPO, file), 'utf8'))) readers.push(file);
    }
    // The scan sees the readers there are (it would pass anything if it saw none).
    expect(readers).toContain('src/config.ts');
    expect(readers.filter((f) => !(f in ALLOWED))).toEqual([]);
  });
});
