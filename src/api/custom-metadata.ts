// customMetadataJson: a JSON object attached to the job and copied into the artifact. It is
// bounded at the edge, before anything is stored: a deeply nested object overflows the
// stack of every structured clone the job later goes through (job stores, worker threads).
// Its strings are text: a \u0000 escape (or half a surrogate pair) anywhere in it is refused,
// as NUL is everywhere else — PostgreSQL cannot store it, and nothing downstream wants it.
import { problems, type ProblemError } from '../http/problem.js';
import { findNotText } from '../http/text-rules.js';

/** Levels of objects and arrays, the outer object included. */
export const CUSTOM_METADATA_MAX_DEPTH = 32;
/** Size of the JSON text in UTF-8 bytes (64 KiB). */
export const CUSTOM_METADATA_MAX_BYTES = 64 * 1024;

const PARAMETER = 'customMetadataJson';

function overLimit(limit: number, detail: string): ProblemError {
  return problems.invalidParameter(PARAMETER, detail, undefined, { limit });
}

/**
 * Deepest nesting of objects and arrays in JSON text, read without parsing it (strings
 * skipped), and stopping once past `stopAbove`.
 */
export function jsonNestingDepth(text: string, stopAbove = Infinity): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > deepest && (deepest = depth) > stopAbove) break;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth--;
    }
  }
  return deepest;
}

/** The parsed object, or null when absent; 400 invalid_parameter when malformed or over a limit. */
export function parseCustomMetadata(raw: string | undefined): Record<string, unknown> | null {
  if (raw === undefined) return null;
  if (Buffer.byteLength(raw, 'utf8') > CUSTOM_METADATA_MAX_BYTES) {
    throw overLimit(CUSTOM_METADATA_MAX_BYTES, `customMetadataJson may be at most ${CUSTOM_METADATA_MAX_BYTES} bytes (64 KiB) of UTF-8.`);
  }
  if (jsonNestingDepth(raw, CUSTOM_METADATA_MAX_DEPTH) > CUSTOM_METADATA_MAX_DEPTH) {
    throw overLimit(CUSTOM_METADATA_MAX_DEPTH, `customMetadataJson may nest objects and arrays at most ${CUSTOM_METADATA_MAX_DEPTH} levels deep.`);
  }
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch (e) {
    throw problems.invalidParameter(PARAMETER, `customMetadataJson is not valid JSON: ${(e as Error).message}`);
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    throw problems.invalidParameter(PARAMETER, 'customMetadataJson must be a JSON object, e.g. {"source":"crm"}.');
  }
  const notText = findNotText(v);
  if (notText) {
    const at = notText.path.map((p) => JSON.stringify(p)).join(' → ');
    throw problems.invalidParameter(PARAMETER, `customMetadataJson holds ${notText.reason} (at ${at}); its strings and names must be text.`);
  }
  return v as Record<string, unknown>;
}
