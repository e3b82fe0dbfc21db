// Installed npm packages: folder and version, read from the package's own package.json.
// Found the way Node looks packages up (the node_modules folders above this file), not
// through require.resolve: several engine packages' "exports" hide their package.json.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

/** Folder of an installed package, or null when it is not installed. */
export function packageDir(name: string): string | null {
  for (const modules of require.resolve.paths(name) ?? []) {
    const dir = path.join(modules, name);
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
  }
  return null;
}

/** Version of an installed package, or null when it is not installed. */
export function packageVersion(name: string): string | null {
  const dir = packageDir(name);
  if (!dir) return null;
  try {
    const version = (JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version?: unknown }).version;
    return typeof version === 'string' ? version : null;
  } catch {
    return null;
  }
}
