// How a finished job is judged: a failure reason must be there and should be written for a
// person, not a JavaScript error passed through.

/** Reasons that are raw JavaScript / runtime errors rather than an explanation. */
export const RAW_REASON =
  /Cannot read propert|Cannot set propert|Cannot destructure|is not a function|is not iterable|is not defined|is not a constructor|undefined|TypeError|RangeError|ReferenceError|SyntaxError|ENOENT|EISDIR|Maximum call stack|Invalid array length|Invalid typed array length|Offset is outside the bounds|memory access out of bounds|RuntimeError|unreachable|Unexpected end of JSON/;

export const TERMINAL = new Set([8, 9]);
export const RUNNING = new Set([3, 4, 7]);

/** The node's own words when the parsing process (or thread) died or was killed for memory. */
export const PARSER_CRASH = /stopped the parsing process|parsing process died|parsing thread died|needed more memory than a parse may use/i;
export const TIMED_OUT = /took longer than \d+ s and was stopped/i;

/** Flags for a failed job's error: missing reason, raw reason, parse-process crash, timeout. */
export function judgeFailure(error) {
  const message = typeof error?.message === 'string' ? error.message.trim() : '';
  if (!message) return { noReason: true, rawReason: null, parserCrash: false, timedOut: false };
  return { noReason: false, rawReason: RAW_REASON.test(message) ? message : null, parserCrash: PARSER_CRASH.test(message), timedOut: TIMED_OUT.test(message) };
}

/** A raw reason with numbers, offsets and quoted names blurred, to group similar ones. */
export function reasonShape(message) {
  return message
    .replace(/'[^']*'|"[^"]*"/g, "'…'")
    .replace(/0x[0-9a-f]+/gi, 'N')
    .replace(/\d+/g, 'N')
    .slice(0, 160);
}
