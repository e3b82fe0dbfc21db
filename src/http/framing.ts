// How a request body is delimited (RFC 9112 §6.3), decided from every Content-Length and
// Transfer-Encoding line before any body byte is read. uWS 20.30 frames bodies itself and
// is lenient where that matters: of several Content-Length lines it uses the first (while
// a header map keeps the last), and it takes any Transfer-Encoding value ("xchunked",
// "chunked, gzip", "identity") as chunked. A request whose framing is in doubt is refused,
// and its connection closed, because the bytes after it cannot be trusted to start the
// next request.
import { problems, type ProblemError } from './problem.js';

export type Framing = { kind: 'none' } | { kind: 'length'; length: number } | { kind: 'chunked' } | { kind: 'refused'; problem: ProblemError };

const NONE: Framing = { kind: 'none' };
const CHUNKED: Framing = { kind: 'chunked' };
const DIGITS = /^\d+$/;
/** uWS 20.30 closes the connection on a Content-Length of more than 9 digits (≥ 10^9 bytes). */
const MAX_LENGTH_DIGITS = 9;

/** Client text quoted in a problem detail, kept short. */
const quote = (v: string) => JSON.stringify(v.length > 64 ? `${v.slice(0, 64)}…` : v);

/**
 * The framing of a request with these Content-Length and Transfer-Encoding lines (each
 * line's value as received, in order; undefined when there is none).
 */
export function requestFraming(contentLengths: readonly string[] | undefined, transferEncodings: readonly string[] | undefined): Framing {
  if (transferEncodings) {
    if (contentLengths) {
      return refused(problems.invalidFraming('Transfer-Encoding', 'The request has both Content-Length and Transfer-Encoding; send one of them.'));
    }
    return transferCodingFraming(transferEncodings);
  }
  if (!contentLengths) return NONE;
  return contentLengthFraming(contentLengths);
}

/**
 * Identical repeated Content-Length lines are accepted as that one length (RFC 9112 §6.3
 * allows it, and uWS frames the body by that same value); differing ones, a value that is
 * not a plain decimal number, or a comma-separated list in one line are refused, and so is
 * a length uWS cannot frame (it then closes the connection itself, before our answer).
 */
function contentLengthFraming(values: readonly string[]): Framing {
  for (const v of values) {
    if (!DIGITS.test(v)) {
      return refused(problems.invalidFraming('Content-Length', `Content-Length must be one decimal number of bytes, not ${quote(v)}.`));
    }
  }
  const first = values[0];
  const other = values.find((v) => v !== first);
  if (other !== undefined) {
    return refused(problems.invalidFraming('Content-Length', `The request has differing Content-Length values (${quote(first)} and ${quote(other)}).`));
  }
  if (first.length > MAX_LENGTH_DIGITS) {
    return refused(
      problems.invalidFraming('Content-Length', 'Bodies of 10^9 bytes or more cannot be sent with a Content-Length here: use Transfer-Encoding: chunked.'),
    );
  }
  const length = Number(first);
  return length === 0 ? NONE : { kind: 'length', length };
}

/**
 * Exactly one coding, chunked (names are case-insensitive). Any other coding is 501, as
 * nginx and Apache answer (RFC 9112 §6.1: a coding the server does not understand), even
 * when chunked is not last; both answers close the connection.
 */
function transferCodingFraming(lines: readonly string[]): Framing {
  const codings = lines
    .join(',')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '');
  const unknown = codings.find((c) => c !== 'chunked');
  if (unknown !== undefined) return refused(problems.unsupportedTransferCoding(unknown.length > 64 ? `${unknown.slice(0, 64)}…` : unknown));
  if (codings.length === 0) return refused(problems.invalidFraming('Transfer-Encoding', 'Transfer-Encoding names no transfer coding.'));
  if (codings.length > 1) return refused(problems.invalidFraming('Transfer-Encoding', 'The chunked transfer coding may be applied only once.'));
  return CHUNKED;
}

const refused = (problem: ProblemError): Framing => ({ kind: 'refused', problem });
