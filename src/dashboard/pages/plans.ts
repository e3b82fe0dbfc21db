// Plans: everyone sees the usable plans (owners choose among them on an app's page);
// operators also see retired ones, define new plans, edit (the name and terms, also of a
// retired plan, which stays retired) and retire them. An edit sends only the fields changed
// on the form, so a size the form shows rounded to MiB is never rewritten by saving it.
import { problem, ProblemError } from '../../http/problem.js';
import type { RouteDef } from '../../http/route.js';
import type { Plan } from '../../tenancy/types.js';
import { FormErrors, checkbox, field, type FormFields } from './forms.js';
import { shownText } from '../display-text.js';
import { html } from './html.js';
import { actionButton, csrfField, formatNumber, notice, redirect, type PageView } from './layout.js';
import { getPage, postForm, type Dashboard, type Page } from './page-kit.js';
import { PlanParams } from './params.js';

const MiB = 1024 * 1024;
const PLAN_FIELDS = [
  'name',
  'maxDocumentUnitsPerMonth',
  'maxFileSizeBytes',
  'maxConcurrentJobs',
  'maxBytesPerSecond',
  'advancedPdfExtraction',
  'ocrPdfExtraction',
] as const;
const FORM_NAMES: Record<string, string> = { maxFileSizeBytes: 'maxFileSizeMiB', maxBytesPerSecond: 'maxMiBPerSecond' };

interface PlanForm {
  name: string;
  units: string;
  fileMiB: string;
  jobs: string;
  rateMiB: string;
  advanced: boolean;
  ocr: boolean;
}

const EMPTY: PlanForm = { name: '', units: '', fileMiB: '256', jobs: '8', rateMiB: '64', advanced: false, ocr: false };

/** A plan as its edit form shows it. */
const formOf = (p: Plan): PlanForm => ({
  name: p.name,
  units: String(p.maxDocumentUnitsPerMonth),
  fileMiB: String(Math.round(p.maxFileSizeBytes / MiB)),
  jobs: String(p.maxConcurrentJobs),
  rateMiB: String(Math.round(p.maxBytesPerSecond / MiB)),
  advanced: p.advancedPdfExtraction,
  ocr: p.ocrPdfExtraction,
});

/** The form's values, read with `read`: checked (FormFields.get) to act on them, as typed to show them again. */
const valuesOf = (read: (name: string) => string): PlanForm => ({
  name: read('name'),
  units: read('maxDocumentUnitsPerMonth'),
  fileMiB: read('maxFileSizeMiB'),
  jobs: read('maxConcurrentJobs'),
  rateMiB: read('maxMiBPerSecond'),
  advanced: read('advancedPdfExtraction') === 'true',
  ocr: read('ocrPdfExtraction') === 'true',
});
const typedForm = (form: FormFields) => valuesOf((name) => form.typed(name));

/** The API field each value of the form sets. */
const API_FIELD = {
  name: 'name',
  units: 'maxDocumentUnitsPerMonth',
  fileMiB: 'maxFileSizeBytes',
  jobs: 'maxConcurrentJobs',
  rateMiB: 'maxBytesPerSecond',
  advanced: 'advancedPdfExtraction',
  ocr: 'ocrPdfExtraction',
} as const satisfies Record<keyof PlanForm, string>;

/** The API body of an edit: the fields whose value on the form differs from what the form showed. */
function editBody(plan: Plan, form: FormFields): Record<string, unknown> {
  // An old name with control characters is shown escaped: sent back as shown, it is unchanged.
  const shown = { ...formOf(plan), name: shownText(plan.name) };
  const now = valuesOf((name) => form.get(name));
  const body = planBody(form);
  const changed = (Object.keys(API_FIELD) as (keyof PlanForm)[]).filter((k) => now[k] !== shown[k]);
  return Object.fromEntries(changed.map((k) => [API_FIELD[k], body[API_FIELD[k]]]));
}

/** The plan's fields, for defining one and for editing one. */
function planFields(v: PlanForm, errors?: FormErrors) {
  return html`${field({ name: 'name', label: 'Name', value: v.name, required: true, errors, attrs: { maxlength: '200' } })}
${field({ name: 'maxDocumentUnitsPerMonth', label: 'Document Units a month', type: 'number', value: v.units, required: true, errors, attrs: { min: '0', step: '1', inputmode: 'numeric' } })}
${field({ name: 'maxFileSizeMiB', label: 'Largest file (MiB)', type: 'number', value: v.fileMiB, errors, attrs: { min: '1', step: '1' } })}
${field({ name: 'maxConcurrentJobs', label: 'Unfinished jobs per app', type: 'number', value: v.jobs, errors, attrs: { min: '1', step: '1' } })}
${field({ name: 'maxMiBPerSecond', label: 'Upload rate (MiB per second)', type: 'number', value: v.rateMiB, errors, attrs: { min: '1', step: '1' } })}
${checkbox({ name: 'ocrPdfExtraction', label: 'OCR for scanned PDFs', checked: v.ocr, errors })}
${checkbox({ name: 'advancedPdfExtraction', label: 'Advanced PDF extraction', checked: v.advanced, errors })}`;
}

/** Field errors carry the API's names; the form shows MiB where the API counts bytes. */
function formErrors(err: ProblemError): FormErrors {
  const errors = FormErrors.fromProblem(err, [...PLAN_FIELDS, ...Object.values(FORM_NAMES)]);
  for (const [api, form] of Object.entries(FORM_NAMES)) if (errors.fields.has(api)) errors.fields.set(form, errors.fields.get(api)!);
  return errors;
}

const planPath = (id: string, rest = '') => `/plans/${encodeURIComponent(id)}${rest}`;

const DONE: Record<string, string> = {
  created: 'Plan created.',
  updated: 'Plan saved: its new terms apply to every app on it.',
  unchanged: 'Nothing was changed.',
  retired: 'Plan retired: apps on it get no tokens until given another.',
};

/** A whole number from a form field, or the text as sent (the API then names the field). */
const int = (s: string, scale = 1): number | string => (/^\d+$/.test(s) ? Number(s) * scale : s);

function planBody(form: FormFields) {
  return {
    name: form.get('name'),
    maxDocumentUnitsPerMonth: int(form.get('maxDocumentUnitsPerMonth')),
    maxFileSizeBytes: int(form.get('maxFileSizeMiB'), MiB),
    maxConcurrentJobs: int(form.get('maxConcurrentJobs')),
    maxBytesPerSecond: int(form.get('maxMiBPerSecond'), MiB),
    advancedPdfExtraction: form.get('advancedPdfExtraction') === 'true',
    ocrPdfExtraction: form.get('ocrPdfExtraction') === 'true',
  };
}

async function plansView(page: Page, v: PlanForm, errors?: FormErrors, status?: number) {
  const op = page.user.principal.isOperator;
  const { items } = await page.api.call<{ items: Plan[] }>('listPlans');
  const done = DONE[page.ctx.query.done ?? ''];
  const rows = items.map(
    (p) =>
      html`<tr><td>${p.name}</td><td>${p.status}</td><td class="num">${formatNumber(p.maxDocumentUnitsPerMonth)}</td><td class="num">${formatNumber(Math.round(p.maxFileSizeBytes / MiB))} MiB</td><td class="num">${p.maxConcurrentJobs}</td><td class="num">${formatNumber(Math.round(p.maxBytesPerSecond / MiB))} MiB/s</td><td>${[p.ocrPdfExtraction ? 'OCR' : '', p.advancedPdfExtraction ? 'advanced PDF' : ''].filter(Boolean).join(', ') || '—'}</td>${
        op
          ? html`<td><a href="${page.url(planPath(p.id, '/edit'))}">Edit ${p.name}</a>${p.status === 'usable' ? actionButton(page.user, page.url(planPath(p.id, '/retire')), `Retire ${p.name}`, { secondary: true }) : ''}</td>`
          : ''
      }</tr>`,
  );
  return page.view({
    title: 'Plans',
    section: 'plans',
    status,
    body: html`${done ? notice('ok', done) : ''}
<p>${op ? 'Plans set each app’s monthly quota and limits. Owners choose among the usable plans on an app’s page.' : 'Choose one of these plans for an app on the app’s page.'}</p>
<div class="table-wrap" tabindex="0" role="region" aria-label="${op ? 'All plans' : 'Usable plans'}"><table><caption>${op ? 'All plans' : 'Usable plans'}</caption><thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col" class="num">Units a month</th><th scope="col" class="num">Largest file</th><th scope="col" class="num">Unfinished jobs</th><th scope="col" class="num">Upload rate</th><th scope="col">PDF features</th>${op ? html`<th scope="col">Actions</th>` : ''}</tr></thead><tbody>${rows}</tbody></table></div>
${
  op
    ? html`<h2 id="new-plan">Define a plan</h2>${errors?.summary()}<form method="post" action="${page.url('/plans')}" class="stack card" aria-labelledby="new-plan">${csrfField(page.user)}
${planFields(v, errors)}
<div class="actions"><button type="submit">Create plan</button></div></form>`
    : ''
}`,
  });
}

/** A plan's edit form (operators: the API refuses anyone else, and the page says so). */
function editView(page: Page, plan: Plan, v: PlanForm, errors?: FormErrors, status?: number): PageView {
  return {
    title: `Edit plan ${plan.name}`,
    section: 'plans',
    status,
    body: html`<p>${plan.status === 'retired' ? 'This plan is retired and stays retired: its apps get no new tokens. ' : ''}The new terms apply at once to every app on this plan: its quota this month, its limits on the next upload. Only the fields you change are saved.</p>
${errors?.summary()}<form method="post" action="${page.url(planPath(plan.id))}" class="stack card" aria-label="Edit plan ${plan.name}">${csrfField(page.user)}
${planFields(v, errors)}
<div class="actions"><button type="submit">Save plan</button><a href="${page.url('/plans')}">Cancel</a></div></form>`,
  };
}

export function planPages(d: Dashboard): RouteDef[] {
  return [
    getPage(d, '/plans', { summary: 'Plans' }, async (page) => plansView(page, EMPTY)),
    postForm(d, '/plans', { summary: 'Define a plan', back: () => `${d.base}/plans` }, async (page, form) => {
      try {
        await page.api.call('createPlan', { body: planBody(form) });
        return redirect(page.url('/plans?done=created'));
      } catch (err) {
        if (!(err instanceof ProblemError) || err.status >= 500) throw err;
        return plansView(page, typedForm(form), formErrors(err), err.status);
      }
    }),
    getPage(d, '/plans/:planId/edit', { params: PlanParams, summary: 'Edit a plan' }, async (page) => {
      // The API would refuse the save; say so before the form is filled in.
      if (!page.user.principal.isOperator) throw problem('operator_required', 'Only platform operators may edit plans.');
      const plan = await page.api.call<Plan>('getPlan', { params: { planId: page.ctx.params.planId } });
      return editView(page, plan, formOf(plan));
    }),
    postForm(
      d,
      '/plans/:planId',
      { params: PlanParams, summary: 'Edit a plan', back: (ctx) => `${d.base}${planPath(String(ctx.params.planId), '/edit')}` },
      async (page, form) => {
        const plan = await page.api.call<Plan>('getPlan', { params: { planId: page.ctx.params.planId } });
        try {
          const changes = editBody(plan, form);
          if (Object.keys(changes).length === 0) return redirect(page.url('/plans?done=unchanged'));
          await page.api.call('updatePlan', { params: { planId: plan.id }, body: changes });
          return redirect(page.url('/plans?done=updated'));
        } catch (err) {
          if (!(err instanceof ProblemError) || err.status >= 500) throw err;
          return editView(page, plan, typedForm(form), formErrors(err), err.status);
        }
      },
    ),
    postForm(d, '/plans/:planId/retire', { params: PlanParams, summary: 'Retire a plan', back: () => `${d.base}/plans` }, async (page) => {
      await page.api.call('retirePlan', { params: { planId: page.ctx.params.planId } });
      return redirect(page.url('/plans?done=retired'));
    }),
  ];
}
