// Failure reasons and warnings are sentences a user understands (issue 27, item 7): a
// library's own error text (a TypeError, zlib's words, a scratch path) never reaches them, and
// what the document itself holds (a member name, a line) is quoted printably and briefly.
import { ExtractionError } from './types.js';

/**
 * Why something could not be read, for a reason or a warning: our own sentences
 * (ExtractionError) as they are, anything else (a library's error) as `fallback`. The raw
 * error belongs in the log: pass it as an ExtractionError's cause when the job fails.
 */
export function unreadableBecause(err: unknown, fallback: string): string {
  return err instanceof ExtractionError ? err.message : fallback;
}

/**
 * Characters a reason never shows as they are: control characters (C0, DEL, C1), format
 * characters (bidi overrides and isolates, zero-width ones, the BOM), line and paragraph
 * separators, lone surrogates and U+FFFD (bytes that were not text).
 */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\uFFFD]/u;
const UNPRINTABLE_RUNS = new RegExp(`${UNPRINTABLE.source}+`, 'gu');

/** Whether `text` holds characters a reason would not show as they are. */
export function hasUnprintable(text: string): boolean {
  return UNPRINTABLE.test(text);
}

/**
 * `text` (a name or a line from the document) as a reason shows it: each run of unprintable
 * characters as one '?', shortened to `max` characters with '…'. `printable` quotes it too.
 */
export function excerpt(text: string, max = 60): string {
  // Only the start can be shown: the rest of a long text is never scanned.
  const head = text.length > max * 4 ? text.slice(0, max * 4) : text;
  const chars = Array.from(head.replace(UNPRINTABLE_RUNS, '?'));
  return chars.length > max || head.length < text.length ? `${chars.slice(0, max).join('')}…` : chars.join('');
}

/** `text` as a reason quotes it: its excerpt in double quotes. */
export function printable(text: string, max = 60): string {
  return `"${excerpt(text, max)}"`;
}
