// What `import … from 'docparse'` gives: the SDK, resolved through package.json "exports",
// loading only the SDK's own compiled files (no server module, no node: module, so it runs
// in a browser); and the artifact types' format table in step with the families' registry.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAMILIES } from '../../src/formats/registry.js';
import { FORMAT_CONTENT } from '../../src/sdk/index.js';
import { REPO_ROOT } from '../helpers/http.js';

/** Every module a compiled file reaches by its static imports (relative ones followed). */
function reached(entry: string): { files: string[]; bare: string[] } {
  const files = new Set<string>();
  const bare = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const source = fs.readFileSync(file, 'utf8');
    for (const m of source.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)|(?:^|\n)\s*import\s+'([^']+)'/g)) {
      const spec = m[1] ?? m[2] ?? m[3];
      if (spec.startsWith('.')) visit(path.resolve(path.dirname(file), spec));
      else bare.add(spec);
    }
  };
  visit(entry);
  return { files: [...files].map((f) => path.relative(REPO_ROOT, f)), bare: [...bare] };
}

describe("the 'docparse' package", () => {
  it('resolves DocparseClient by the package name, and docparse/node its file helper', () => {
    const r = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const sdk = await import('docparse'); const node = await import('docparse/node'); console.log(typeof sdk.DocparseClient, typeof sdk.DocparseError, typeof node.uploadFile, node.DocparseClient === sdk.DocparseClient)",
      ],
      { cwd: REPO_ROOT, encoding: 'utf8' },
    );
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe('function function function true');
  });

  it('loads nothing but the SDK: no server module, no package, no node: module', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { exports: Record<string, { default: string }> };
    const { files, bare } = reached(path.join(REPO_ROOT, pkg.exports['.'].default));
    expect(files.length).toBeGreaterThan(3);
    expect(files.filter((f) => !f.startsWith('dist/sdk/'))).toEqual([]);
    expect(files).not.toContain('dist/sdk/node.js');
    expect(bare).toEqual([]);
  });

  it('FORMAT_CONTENT names every format of the registry with its published content schema', () => {
    const fromRegistry = Object.fromEntries(FAMILIES.flatMap((f) => f.formats.map((d) => [d.format, f.content?.name ?? null])));
    expect(FORMAT_CONTENT).toEqual(fromRegistry);
  });
});
