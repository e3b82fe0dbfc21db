// An MSG whose attachment lost its data and name streams (edited directory sector): the
// message is read, and the attachment's warning is a sentence, not msgreader's TypeError.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { msgWithUnreadableAttachment } from '../../../bench/fuzz/generators/messages.mjs';
import { parseFile } from '../../helpers/parse.js';

async function parseBytes(bytes: Buffer, format: string, fileName: string) {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dp-mail-reasons-'));
  try {
    await fs.writeFile(path.join(dir, fileName), bytes);
    return await parseFile(path.join(dir, fileName), format, {}, fileName);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

describe('MSG attachments that cannot be read', () => {
  it('are named by position and explained in a sentence, never by the library’s TypeError', async () => {
    const r = await parseBytes(msgWithUnreadableAttachment(), 'msg', 'edited-sectors.msg');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const message = r.artifact.content.messages[0];
    expect(message.subject).toBe('Generated MSG subject');
    expect(message.warnings).toEqual([
      "attachment 1 (no file name): its content could not be read (the attachment's data in the MSG file is missing or damaged)",
    ]);
    expect(r.artifact.warnings).toEqual([`message 0: ${message.warnings[0]}`]);
    expect(message.attachments).toHaveLength(1);
    expect(message.attachments[0]).toMatchObject({ fileName: null, sha256: null });
  });
});
