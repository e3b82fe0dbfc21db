// What the families' reason tests share (issue 27, item 7): a generated upload parsed as the
// worker thread parses it, and the check that a failure reason or warning is a sentence.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { writeArtifact } from '../../src/pipeline/thread.js';
import { FORMATS } from '../../src/formats/registry.js';
import type { JobOptions } from '../../src/formats/kit/options.js';
import type { ParseTaskResult } from '../../src/pipeline/task.js';
import { parserSettings, type SettingsOverrides } from '../helpers/parser-settings.js';

/**
 * What a library's own error looks like when it leaks: JavaScript error names and texts,
 * zlib's and DataView's words, paths of this node, control characters raw or as escapes.
 */
export const RAW_TEXT =
  /TypeError|RangeError|SyntaxError|Cannot read propert|is not a function|undefined|Invalid code point|Offset is outside|Unexpected token|invalid (distance|code|block|stored)|incorrect header|\/tmp\/|node_modules|[\p{Cc}]|\\u00|\\x[0-9a-f]{2}/iu;

/** Asserts `text` reads as a sentence: none of RAW_TEXT, and more than a word or two. */
export function expectSentence(text: string): void {
  expect(text).not.toMatch(RAW_TEXT);
  expect(text.split(/\s+/).length).toBeGreaterThan(3);
}

export type Parsed = { result: ParseTaskResult; artifact: Record<string, any> | null };

/** Parses `bytes` uploaded as `fileName` with the registered parser for `format`, as a job's thread would. */
export async function parseUpload(bytes: Buffer, fileName: string, format: string, options: JobOptions = {}, over: SettingsOverrides = {}): Promise<Parsed> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dp-reasons-'));
  try {
    const inputPath = path.join(dir, fileName);
    await fs.writeFile(inputPath, bytes);
    const tempDir = path.join(dir, 'work');
    await fs.mkdir(tempDir);
    const artifactPath = path.join(dir, 'artifact.json');
    const result = await writeArtifact(
      { documentId: 'reasons', fileName, format, options, customMetadata: null, inputPath, artifactPath, tempDir },
      () => FORMATS[format].load!(),
      // Page counts by LibreOffice are not under test here.
      parserSettings({ ...over, office: { render: 'off', ...over.office } }),
    );
    const artifact = result.ok ? (JSON.parse(await fs.readFile(artifactPath, 'utf8')) as Record<string, any>) : null;
    return { result, artifact };
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
