// How a finished job is judged: a failure reason must be there and should be written for a
// person, not a JavaScript error passed through.

/**
 * Reasons that are raw errors rather than an explanation: JavaScript and WASM runtime errors,
 * zlib's, yauzl's and JSON.parse's own words, paths of the node, and the document's control
 * characters quoted back raw or as escapes (issue 27, item 7).
 */
export const RAW_REASON = new RegExp(
  [
    /Cannot read propert|Cannot set propert|Cannot destructure|is not a function|is not iterable|is not defined|is not a constructor|undefined/.source,
    /TypeError|RangeError|ReferenceError|SyntaxError|ENOENT|EISDIR|Maximum call stack|Invalid array length|Invalid typed array length|Invalid code point/
      .source,
    /Offset is outside the bounds|memory access out of bounds|RuntimeError|unreachable|Unexpected end of JSON|Unexpected token|in JSON at position/.source,
    /invalid distance too far back|invalid (block type|code lengths set|bit length repeat|literal\/lengths set|distances set|stored block lengths)|incorrect header check/
      .source,
    /signature not found|header signature: 0x|overflows file bounds|not enough bytes in the stream|too many bytes in the stream/.source,
    /\/tmp\/|\/dp\/gis-|node_modules|[\u0000-\u0008\u000b-\u001f\u007f-\u009f]|\\u00[0-9a-f]{2}/.source,
  ].join('|'),
);

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
