// What `docker build .` sends to the daemon: .dockerignore read with Docker's own rules (a
// pattern excludes a path when it matches it or one of its parent folders, the last matching
// pattern wins, `!` re-includes). The context must hold everything the Dockerfile copies and
// nothing of data/ (data/master.key seals the signing keys), dependencies or builds made on
// the host, .git or test output.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

interface Rule {
  exclude: boolean;
  re: RegExp;
}

/** .dockerignore's patterns as moby/patternmatcher reads them (filepath.Match with `**`). */
function rules(text: string): Rule[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const exclude = !l.startsWith('!');
      const pattern = path.posix.normalize((exclude ? l : l.slice(1)).replace(/^\/+/, '')).replace(/\/+$/, '');
      let re = '';
      for (let i = 0; i < pattern.length; i++) {
        const c = pattern[i];
        if (c === '*' && pattern[i + 1] === '*') {
          // `**/` matches no folder or any folders; a trailing `**` matches anything.
          re += pattern[i + 2] === '/' ? '(?:.*/)?' : '.*';
          i += pattern[i + 2] === '/' ? 2 : 1;
        } else if (c === '*') re += '[^/]*';
        else if (c === '?') re += '[^/]';
        else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
      }
      return { exclude, re: new RegExp(`^${re}$`) };
    });
}

/** Whether `file` (relative, '/'-separated) is left out of the context. */
function excluded(file: string, rs: Rule[]): boolean {
  const parts = file.split('/');
  const prefixes = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
  let out = false;
  for (const r of rs) if (prefixes.some((p) => r.re.test(p))) out = r.exclude;
  return out;
}

function filesUnder(dir: string, rel = ''): string[] {
  return readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((e) => {
    const p = rel ? `${rel}/${e.name}` : e.name;
    return e.isDirectory() ? filesUnder(dir, p) : [p];
  });
}

const rs = rules(readFileSync(path.join(REPO, '.dockerignore'), 'utf8'));

describe('the Docker build context', () => {
  it('leaves out data/ and its master key, dependencies and builds of the host, .git and test output', () => {
    for (const f of [
      'data/master.key',
      'data/pglite/base/1',
      'node_modules/pino/package.json',
      'dist/bin.js',
      '.git/HEAD',
      'test-artifacts/dashboard/home.png',
      'coverage/index.html',
      'bench/results/x.json',
      'test/config/config.test.ts',
      'README.md',
      'src/data/master.key',
      'src/x/node_modules/y.js',
    ]) {
      expect(excluded(f, rs), f).toBe(true);
    }
    // And on this checkout as it is: nothing but what the Dockerfile copies.
    const sent = filesUnder(REPO).filter((f) => !f.startsWith('.git/') && !f.startsWith('node_modules/') && !excluded(f, rs));
    expect(
      sent.filter(
        (f) =>
          !/^(src|wasm)\//.test(f) && !['package.json', 'package-lock.json', 'tsconfig.json', 'scripts/install-engines.sh', 'scripts/build.mjs'].includes(f),
      ),
    ).toEqual([]);
  });

  it('holds every path the Dockerfile copies from it', () => {
    const copies = [...readFileSync(path.join(REPO, 'Dockerfile'), 'utf8').matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap((m) => m[1].trim().split(/\s+/));
    expect(copies).toEqual(expect.arrayContaining(['package.json', 'src', 'wasm', 'scripts/install-engines.sh']));
    for (const c of copies) {
      const files = c === 'src' || c === 'wasm' ? filesUnder(REPO, c).map((f) => `${c}/${f}`) : [c];
      expect(files.length, c).toBeGreaterThan(0);
      expect(
        files.filter((f) => excluded(f, rs)),
        c,
      ).toEqual([]);
    }
  });

  it('reads patterns as Docker does: the last match wins, a folder pattern covers what is inside', () => {
    const r = rules('*\n!src/\n**/secret.txt\n');
    expect(['README.md', 'docs/a.md', 'src/secret.txt', 'src/a/secret.txt'].map((f) => excluded(f, r))).toEqual([true, true, true, true]);
    expect(['src/a.ts', 'src/a/b.ts'].map((f) => excluded(f, r))).toEqual([false, false]);
  });
});
