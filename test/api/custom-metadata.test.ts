// Bounds of customMetadataJson, checked on the text before it is parsed.
import { describe, expect, it } from 'vitest';
import { CUSTOM_METADATA_MAX_BYTES, jsonNestingDepth, parseCustomMetadata } from '../../src/api/custom-metadata.js';
import { ProblemError } from '../../src/http/problem.js';

const refusal = (raw: string) => {
  try {
    parseCustomMetadata(raw);
  } catch (err) {
    return err as ProblemError;
  }
  throw new Error('accepted');
};

describe('customMetadataJson bounds', () => {
  it('counts objects and arrays, not brackets or escaped quotes inside strings', () => {
    expect(jsonNestingDepth('{"a":[1,{"b":2}]}')).toBe(3);
    expect(jsonNestingDepth('{"a":"{[{[\\"{[","b":{}}')).toBe(2);
    expect(jsonNestingDepth('{"a":"\\\\","b":[[]]}')).toBe(3);
  });

  it('accepts 32 levels and refuses 33 with the limit named', () => {
    const nested = (n: number) => '{"a":'.repeat(n) + '0' + '}'.repeat(n);
    expect(parseCustomMetadata(nested(32))).toBeTruthy();
    expect(refusal(nested(33))).toMatchObject({ status: 400, code: 'invalid_parameter', extras: { parameter: 'customMetadataJson', limit: 32 } });
    expect(refusal(nested(10_000)).extras.limit).toBe(32);
  });

  it('counts the size in UTF-8 bytes', () => {
    const fits = JSON.stringify({ s: 'x'.repeat(CUSTOM_METADATA_MAX_BYTES - 8) });
    expect(Buffer.byteLength(fits)).toBe(CUSTOM_METADATA_MAX_BYTES);
    expect(parseCustomMetadata(fits)).toBeTruthy();
    expect(refusal(JSON.stringify({ s: '€'.repeat(22_000) })).extras).toEqual({ parameter: 'customMetadataJson', limit: 65536 });
  });
});
