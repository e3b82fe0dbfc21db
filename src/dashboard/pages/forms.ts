// Forms: the urlencoded body of a page POST, and the API's problem details turned into
// messages next to the fields they name (`parameter`, or RFC 9457 style `invalid_params`).
// A field whose value is not text (NUL) is refused, naming it, when the page reads it — so the
// page can show the refusal beside the field, with what was typed (typed()).
import { ProblemError } from '../../http/problem.js';
import type { RequestContext } from '../../http/route.js';
import { fieldNotText, readFormBody } from '../form-body.js';
import { html, type Html } from './html.js';

const MAX_FORM_BYTES = 64 * 1024;

export class FormFields {
  constructor(private readonly params: URLSearchParams) {}
  /** The trimmed value, or '' when absent; 400 invalid_parameter naming the field when it holds NUL. */
  get(name: string): string {
    return this.checked(name, this.typed(name));
  }
  /** What was typed into the field, trimmed, unchecked: only to show the form again (pages escape it). */
  typed(name: string): string {
    return (this.params.get(name) ?? '').trim();
  }
  has(name: string): boolean {
    return this.params.has(name);
  }
  /** A value that may be absent: undefined then (so it is left out of the API call). */
  optional(name: string): string | undefined {
    const v = this.get(name);
    return v === '' ? undefined : v;
  }
  /** Lines of a textarea (or repeated fields), blank ones dropped. */
  lines(name: string): string[] {
    return this.params
      .getAll(name)
      .map((v) => this.checked(name, v))
      .flatMap((v) => v.split(/[\r\n,]+/))
      .map((v) => v.trim())
      .filter(Boolean);
  }

  private checked(name: string, value: string): string {
    const refusal = fieldNotText(name, value);
    if (refusal) throw refusal;
    return value;
  }
}

export async function readForm(ctx: RequestContext): Promise<FormFields> {
  return new FormFields(await readFormBody(ctx, MAX_FORM_BYTES));
}

/** What went wrong with a submitted form: per field, and for the form as a whole. */
export class FormErrors {
  readonly fields = new Map<string, string>();
  readonly general: string[] = [];

  /** `fieldNames` are the form's fields; a problem naming another parameter is shown at the top. */
  static fromProblem(err: ProblemError, fieldNames: readonly string[]): FormErrors {
    const e = new FormErrors();
    const named: { name: string; reason: string }[] = [];
    const invalid = err.extras.invalid_params;
    if (Array.isArray(invalid)) {
      for (const p of invalid as { name?: unknown; reason?: unknown }[])
        if (typeof p.name === 'string') named.push({ name: p.name, reason: String(p.reason ?? err.detail ?? err.title) });
    }
    if (typeof err.extras.parameter === 'string') named.push({ name: err.extras.parameter, reason: err.detail ?? err.title });
    for (const { name, reason } of named) {
      if (fieldNames.includes(name)) e.fields.set(name, reason);
      else e.general.push(reason);
    }
    if (named.length === 0) e.general.push(err.detail ? `${err.title}: ${err.detail}` : err.title);
    return e;
  }

  get empty(): boolean {
    return this.fields.size === 0 && this.general.length === 0;
  }

  /** The summary at the top of the form, focusable and announced. */
  summary(): Html | null {
    if (this.empty) return null;
    const items = [...this.general, ...this.fields.values()];
    return html`<div class="error-summary" role="alert" tabindex="-1" id="error-summary"><h2>The form could not be saved</h2><ul>${items.map((m) => html`<li>${m}</li>`)}</ul></div>`;
  }
}

export interface FieldOptions {
  name: string;
  label: string;
  value?: string;
  type?: 'text' | 'email' | 'number' | 'password' | 'url' | 'month';
  hint?: string;
  required?: boolean;
  errors?: FormErrors;
  autocomplete?: string;
  /** Extra attributes, e.g. min/max/inputmode (names and values are escaped). */
  attrs?: Record<string, string>;
  textarea?: boolean;
}

const idOf = (name: string) => `f-${name.replace(/[^A-Za-z0-9_-]/g, '_')}`;

/** Attributes that tie the control to its hint and its error message. */
function described(name: string, hint: string | undefined, error: string | undefined): Html {
  const ids = [hint ? `${idOf(name)}-hint` : '', error ? `${idOf(name)}-error` : ''].filter(Boolean).join(' ');
  return html`${ids ? html` aria-describedby="${ids}"` : ''}${error ? html` aria-invalid="true"` : ''}`;
}

function messages(name: string, hint: string | undefined, error: string | undefined): Html {
  return html`${hint ? html`<p class="hint" id="${idOf(name)}-hint">${hint}</p>` : ''}${error ? html`<p class="error" id="${idOf(name)}-error">${error}</p>` : ''}`;
}

export function field(o: FieldOptions): Html {
  const id = idOf(o.name);
  const error = o.errors?.fields.get(o.name);
  const attrs = Object.entries(o.attrs ?? {}).map(([k, v]) => html` ${k}="${v}"`);
  const common = html`id="${id}" name="${o.name}"${o.required ? html` required` : ''}${o.autocomplete ? html` autocomplete="${o.autocomplete}"` : ''}${described(o.name, o.hint, error)}${attrs}`;
  const control = o.textarea
    ? html`<textarea ${common}>${o.value ?? ''}</textarea>`
    : html`<input type="${o.type ?? 'text'}" ${common} value="${o.value ?? ''}">`;
  return html`<div class="field"><label for="${id}">${o.label}</label>${control}${messages(o.name, o.hint, error)}</div>`;
}

export function select(o: {
  name: string;
  label: string;
  options: { value: string; label: string; data?: Record<string, string> }[];
  value?: string;
  hint?: string;
  errors?: FormErrors;
  attrs?: Record<string, string>;
}): Html {
  const id = idOf(o.name);
  const error = o.errors?.fields.get(o.name);
  const attrs = Object.entries(o.attrs ?? {}).map(([k, v]) => html` ${k}="${v}"`);
  return html`<div class="field"><label for="${id}">${o.label}</label><select id="${id}" name="${o.name}"${described(o.name, o.hint, error)}${attrs}>${o.options.map(
    (opt) =>
      html`<option value="${opt.value}"${opt.value === o.value ? html` selected` : ''}${Object.entries(opt.data ?? {}).map(([k, v]) => html` data-${k}="${v}"`)}>${opt.label}</option>`,
  )}</select>${messages(o.name, o.hint, error)}</div>`;
}

export function checkbox(o: { name: string; label: string; checked: boolean; hint?: string; errors?: FormErrors }): Html {
  const id = idOf(o.name);
  const error = o.errors?.fields.get(o.name);
  return html`<div class="field"><div class="check"><input type="checkbox" id="${id}" name="${o.name}" value="true"${o.checked ? html` checked` : ''}${described(o.name, o.hint, error)}><label for="${id}">${o.label}</label></div>${messages(o.name, o.hint, error)}</div>`;
}
