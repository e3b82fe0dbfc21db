// The two small pieces every page leans on: templates escape whatever they are given, and a
// problem from the API becomes messages beside the fields it names.
import { describe, expect, it } from 'vitest';
import { ProblemError, problems } from '../../../src/http/problem.js';
import { html } from '../../../src/dashboard/pages/html.js';
import { FormErrors, field } from '../../../src/dashboard/pages/forms.js';

describe('html templates', () => {
  it('escape values, arrays of values and attribute quotes; nested templates stay markup', () => {
    const name = `<img src=x onerror="alert('1')"> & co`;
    const out = html`<p title="${name}">${name}</p><ul>${['<a>', html`<li>${'<b>'}</li>`]}</ul>${null}${undefined}${false}${0}`.value;
    expect(out).toBe(
      '<p title="&lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt; &amp; co">&lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt; &amp; co</p><ul>&lt;a&gt;<li>&lt;b&gt;</li></ul>0',
    );
  });
});

describe('form errors from problems', () => {
  it("put the API's `parameter` beside that field, and anything else at the top", () => {
    const e = FormErrors.fromProblem(problems.invalidParameter('name', '"name" must NOT have fewer than 1 characters.'), ['name', 'email']);
    expect([...e.fields]).toEqual([['name', '"name" must NOT have fewer than 1 characters.']]);
    expect(e.general).toEqual([]);
    const body = FormErrors.fromProblem(problems.invalidParameter('body', 'A JSON request body is required.'), ['name']);
    expect(body.general).toEqual(['A JSON request body is required.']);
    const conflict = FormErrors.fromProblem(new ProblemError(409, 'already_member', 'Conflict', 'x@y.test is already a member.'), ['email']);
    expect(conflict.general).toEqual(['Conflict: x@y.test is already a member.']);
  });

  it('read RFC 9457 style invalid_params too', () => {
    const p = new ProblemError(400, 'invalid_parameter', 'Invalid parameter', 'Two fields are wrong.', {
      invalid_params: [
        { name: 'email', reason: 'not an address' },
        { name: 'zip', reason: 'unknown' },
      ],
    });
    const e = FormErrors.fromProblem(p, ['email']);
    expect(e.fields.get('email')).toBe('not an address');
    expect(e.general).toEqual(['unknown']);
  });

  it('tie the message to its control for assistive technology', () => {
    const e = FormErrors.fromProblem(problems.invalidParameter('email', 'not an address'), ['email']);
    const out = field({ name: 'email', label: 'E-mail', type: 'email', value: 'nope', errors: e, hint: 'Work address' }).value;
    expect(out).toBe(
      '<div class="field"><label for="f-email">E-mail</label><input type="email" id="f-email" name="email" aria-describedby="f-email-hint f-email-error" aria-invalid="true" value="nope"><p class="hint" id="f-email-hint">Work address</p><p class="error" id="f-email-error">not an address</p></div>',
    );
  });
});
