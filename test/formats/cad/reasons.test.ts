// Reasons for drawings that are not what they claim: printable sentences, never the file's
// control bytes quoted back (as JSON escapes or raw).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { dxfWithControlBytes } from '../../../bench/fuzz/generators/messages.mjs';
import { parseFile } from '../../helpers/parse.js';
import { describeDwgError } from '../../../src/formats/cad/dwg.js';
import { newLibreDwgInstance } from '../../../src/formats/cad/libredwg.js';

async function parseBytes(bytes: Buffer, format: string, fileName: string) {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dp-cad-reasons-'));
  try {
    await fs.writeFile(path.join(dir, fileName), bytes);
    return await parseFile(path.join(dir, fileName), format, {}, fileName);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

const CONTROL = /[\p{Cc}]|\\u00|\\x/u;

describe('CAD failure reasons', () => {
  it('a DXF with binary bytes where a group code belongs says so, without quoting them', async () => {
    const r = await parseBytes(dxfWithControlBytes(), 'dxf', 'control.dxf');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.message).toBe('malformed DXF: line 3 should hold a group code but holds binary data (control characters), not text');
    expect(r.message).not.toMatch(CONTROL);
  });

  it('a DXF with text where a number belongs quotes a short excerpt of it', async () => {
    const r = await parseBytes(Buffer.from(`0\nSECTION\n2\nENTITIES\n0\nLINE\n10\n${'not a number '.repeat(10)}\n0\nEOF\n`), 'dxf', 'text.dxf');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.message).toBe('malformed DXF: line 8 should hold a number for group code 10 but holds "not a number not a number not a number n…"');
  });

  it('a file starting "AC" followed by control bytes is not a DWG, and its bytes are not quoted', async () => {
    const bytes = Buffer.concat([Buffer.from('AC'), Buffer.from([0x00, 0x01, 0x1b, 0x07]), Buffer.alloc(200, 0x20)]);
    const r = await parseBytes(bytes, 'dwg', 'fake.dwg');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.message).toBe('not a DWG file: the AutoCAD version signature (AC10xx) is missing');
  });
});

describe('LibreDWG error codes in reasons', () => {
  it('each bit is named after its own meaning in LibreDWG, and no name reads like a JavaScript error', async () => {
    const { raw } = await newLibreDwgInstance();
    const bit = (name: string): number => raw.Dwg_Error[name].value;
    expect(describeDwgError(bit('DWG_ERR_WRONGCRC'))).toBe('wrong checksum');
    expect(describeDwgError(bit('DWG_ERR_INVALIDHANDLE'))).toBe('invalid handle');
    expect(describeDwgError(bit('DWG_ERR_INVALIDEED'))).toBe('invalid extended entity data');
    expect(describeDwgError(bit('DWG_ERR_VALUEOUTOFBOUNDS') | bit('DWG_ERR_SECTIONNOTFOUND'))).toBe('value out of bounds, section not found');
    // 119, as a fuzzed drawing gave it: once 'wrong handle, …, undefined entity data, …'.
    expect(describeDwgError(119)).toBe(
      'wrong checksum, a feature not yet supported, unhandled class, invalid handle, invalid extended entity data, value out of bounds',
    );
  });
});
