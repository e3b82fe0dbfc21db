// HTML built from tagged templates: every interpolated value is escaped (src/dashboard/
// display-text.ts: control and bidi characters shown as \u escapes too) unless it is itself
// Html (the output of another template), so a page cannot forget to escape.
import { escapeHtml } from '../display-text.js';

export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/** null, undefined and false render nothing; arrays render each item; Html stays as it is. */
function render(v: unknown): string {
  if (v === null || v === undefined || v === false) return '';
  if (v instanceof Html) return v.value;
  if (Array.isArray(v)) return v.map(render).join('');
  return escapeHtml(String(v));
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new Html(out);
}

/** Trusted markup (only for text this module's callers wrote themselves). */
export const raw = (s: string) => new Html(s);
