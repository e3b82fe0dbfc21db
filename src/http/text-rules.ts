// What text the service takes in and what it lets out to a terminal. Three rules, one place:
// no request value holds NUL or half a UTF-16 surrogate pair (neither is text; PostgreSQL
// refuses the one, UTF-8 mangles the other); a display name (tenant, app, plan, key, storage)
// is plain text — no control or bidirectional formatting characters, something visible; and
// what a terminal is shown has those characters escaped, for rows written before the rule.

/** Bidirectional formatting characters: embeddings, overrides, isolates and marks. */
const BIDI = '\\u061C\\u200E\\u200F\\u202A-\\u202E\\u2066-\\u2069';
/** C0 and C1 controls and DEL (\p{Cc}), line and paragraph separators, bidi formatting. */
const CONTROL_OR_BIDI = new RegExp(`[\\p{Cc}\\u2028\\u2029${BIDI}]`, 'u');
/** What a name may consist of and still show nothing: spaces, format and default-ignorable characters, lone marks, the braille blank. */
const INVISIBLE = /^[\p{White_Space}\p{Default_Ignorable_Code_Point}\p{Cf}\p{M}\u2800]*$/u;
const NOT_TEXT = /\u0000|\p{Cs}/u;

const NAMES: Record<number, string> = {
  0x00: 'NUL',
  0x07: 'BEL',
  0x08: 'backspace',
  0x09: 'tab',
  0x0a: 'line feed',
  0x0d: 'carriage return',
  0x1b: 'ESC',
  0x7f: 'DEL',
  0x9b: 'CSI',
  0x2028: 'line separator',
  0x2029: 'paragraph separator',
  0x061c: 'Arabic letter mark',
  0x200e: 'left-to-right mark',
  0x200f: 'right-to-left mark',
  0x202a: 'left-to-right embedding',
  0x202b: 'right-to-left embedding',
  0x202c: 'pop directional formatting',
  0x202d: 'left-to-right override',
  0x202e: 'right-to-left override',
  0x2066: 'left-to-right isolate',
  0x2067: 'right-to-left isolate',
  0x2068: 'first strong isolate',
  0x2069: 'pop directional isolate',
  0x212a: 'Kelvin sign',
  0x212b: 'Angstrom sign',
};

/** "U+001B (ESC)": a character as a person can read it in a message. */
export function describeChar(ch: string): string {
  const cp = ch.codePointAt(0)!;
  const hex = `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  return NAMES[cp] ? `${hex} (${NAMES[cp]})` : hex;
}

/** Why a string is not text (it holds NUL or an unpaired surrogate), or null. */
export function notText(s: string): string | null {
  const m = NOT_TEXT.exec(s);
  if (!m) return null;
  return m[0] === '\u0000' ? 'a NUL character (U+0000)' : `an unpaired UTF-16 surrogate (${describeChar(m[0])})`;
}

/**
 * The first string of a parsed value (object keys included) that is not text: where it is
 * (keys and indexes from the top) and why. Walked without recursion, so nesting depth is no
 * risk.
 */
export function findNotText(value: unknown): { path: (string | number)[]; reason: string } | null {
  const stack: { v: unknown; path: (string | number)[] }[] = [{ v: value, path: [] }];
  while (stack.length) {
    const { v, path } = stack.pop()!;
    if (typeof v === 'string') {
      const reason = notText(v);
      if (reason) return { path, reason };
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], path: [...path, i] });
    } else if (v !== null && typeof v === 'object') {
      for (const [k, item] of Object.entries(v)) {
        const reason = notText(k);
        if (reason) return { path: [...path, k], reason: `a name with ${reason}` };
        stack.push({ v: item, path: [...path, k] });
      }
    }
  }
  return null;
}

/**
 * Why `name` is not a usable display name, or null. Said after the field's name: `"name"
 * contains U+001B (ESC), …`.
 */
export function displayNameProblem(name: string): string | null {
  const bad = CONTROL_OR_BIDI.exec(name) ?? NOT_TEXT.exec(name);
  if (bad) {
    const cp = bad[0].codePointAt(0)!;
    const kind = new RegExp(`[${BIDI}]`, 'u').test(bad[0]) ? 'a bidirectional formatting character' : 'a control character';
    const what = cp >= 0xd800 && cp <= 0xdfff ? 'half of a UTF-16 surrogate pair' : kind;
    return `contains ${describeChar(bad[0])}, ${what}: a name is plain text, without control or bidirectional formatting characters`;
  }
  if (INVISIBLE.test(name)) return 'has no visible character: a name needs at least one letter, digit or sign';
  return null;
}

/** A display name as it is stored: NFC, without surrounding white space. */
export function normalizeDisplayName(name: string): string {
  return name.normalize('NFC').trim();
}

const TERMINAL_UNSAFE = new RegExp(`[\\p{Cc}\\u2028\\u2029${BIDI}]|\\p{Cs}`, 'gu');
const TERMINAL_UNSAFE_BUT_LF = new RegExp(`(?!\\n)[\\p{Cc}\\u2028\\u2029${BIDI}]|\\p{Cs}`, 'gu');
const uEscape = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * Text for a terminal: control, bidirectional formatting and separator characters (and
 * unpaired surrogates) written as `\u001b`, which is also what they are in a JSON string —
 * so a JSON line stays the same JSON. With keepLineFeeds, LF still ends a line.
 */
export function terminalSafe(s: string, opts: { keepLineFeeds?: boolean } = {}): string {
  return s.replace(opts.keepLineFeeds ? TERMINAL_UNSAFE_BUT_LF : TERMINAL_UNSAFE, uEscape);
}
