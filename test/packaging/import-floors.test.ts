// The import rule itself (`npm run check:imports`, .dependency-cruiser.cjs): on a small tree
// written here, an import that goes up a floor, one across to a neighbour on the same floor,
// and one from a folder without a floor each fail the check; imports down the floors pass.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/http.js';

const trees: string[] = [];
afterEach(() => {
  for (const t of trees.splice(0)) fs.rmSync(t, { recursive: true, force: true });
});

/** Writes `files` (path under src/ → imports) into a fresh tree and runs the check there. */
function check(files: Record<string, string[]>): { code: number | null; output: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'dp-floors-'));
  trees.push(root);
  fs.copyFileSync(path.join(REPO_ROOT, '.dependency-cruiser.cjs'), path.join(root, '.dependency-cruiser.cjs'));
  fs.writeFileSync(path.join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } }));
  for (const [file, imports] of Object.entries(files)) {
    const full = path.join(root, 'src', file);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    const lines = imports.map((to, i) => {
      let rel = path.relative(path.dirname(full), path.join(root, 'src', to)).replace(/\.ts$/, '.js');
      if (!rel.startsWith('.')) rel = `./${rel}`;
      return `import { x as x${i} } from '${rel}';\nvoid x${i};`;
    });
    fs.writeFileSync(full, [...lines, 'export const x = 1;', ''].join('\n'));
  }
  const r = spawnSync(path.join(REPO_ROOT, 'node_modules/.bin/depcruise'), ['src', '--config', '.dependency-cruiser.cjs', '--output-type', 'err'], {
    cwd: root,
    encoding: 'utf8',
  });
  return { code: r.status, output: `${r.stdout}${r.stderr}` };
}

describe('the import floors', () => {
  it('imports down the floors pass', () => {
    const r = check({
      'errors/catalogue.ts': [],
      'http/problem.ts': ['errors/catalogue.ts'],
      'tenancy/store.ts': ['http/problem.ts'],
      'manage/routes.ts': ['tenancy/store.ts', 'http/problem.ts'],
      'node.ts': ['manage/routes.ts'],
    });
    expect(r.output).toMatch(/no dependency violations/);
    expect(r.code).toBe(0);
  });

  it('an import up a floor fails, naming the rule and both files', () => {
    const r = check({ 'tenancy/store.ts': [], 'errors/planted.ts': ['tenancy/store.ts'] });
    expect(r.code).not.toBe(0);
    expect(r.output).toMatch(/floor:errors: src\/errors\/planted\.ts → src\/tenancy\/store\.ts/);
  });

  it('an import across to a neighbour on the same floor fails', () => {
    const r = check({ 'storage/blobs.ts': [], 'identity/keys.ts': ['storage/blobs.ts'] });
    expect(r.code).not.toBe(0);
    expect(r.output).toMatch(/floor:identity: src\/identity\/keys\.ts → src\/storage\/blobs\.ts/);
  });

  it('a folder the floors do not name fails until it is given one', () => {
    const r = check({ 'http/problem.ts': [], 'newthing/a.ts': ['http/problem.ts'] });
    expect(r.code).not.toBe(0);
    expect(r.output).toMatch(/every-module-on-a-floor: src\/newthing\/a\.ts/);
  });
});
