// Plans: everyone sees the usable plans (owners choose among them on an app's page);
// operators also see retired ones, define new plans and retire old ones. The API has no
// edit: a plan's terms are fixed once apps use it, so a change is a new plan.
import { ProblemError } from '../../http/problem.js';
import type { RouteDef } from '../../http/route.js';
import type { Plan } from '../../tenancy/types.js';
import { FormErrors, checkbox, field, type FormFields } from './forms.js';
import { html } from './html.js';
import { actionButton, csrfField, formatNumber, notice, redirect } from './layout.js';
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
  const done =
    page.ctx.query.done === 'created'
      ? 'Plan created.'
      : page.ctx.query.done === 'retired'
        ? 'Plan retired: apps on it get no tokens until given another.'
        : '';
  const rows = items.map(
    (p) =>
      html`<tr><td>${p.name}</td><td>${p.status}</td><td class="num">${formatNumber(p.maxDocumentUnitsPerMonth)}</td><td class="num">${formatNumber(Math.round(p.maxFileSizeBytes / MiB))} MiB</td><td class="num">${p.maxConcurrentJobs}</td><td class="num">${formatNumber(Math.round(p.maxBytesPerSecond / MiB))} MiB/s</td><td>${[p.ocrPdfExtraction ? 'OCR' : '', p.advancedPdfExtraction ? 'advanced PDF' : ''].filter(Boolean).join(', ') || '—'}</td>${
        op
          ? html`<td>${p.status === 'usable' ? actionButton(page.user, page.url(`/plans/${encodeURIComponent(p.id)}/retire`), `Retire ${p.name}`, { secondary: true }) : ''}</td>`
          : ''
      }</tr>`,
  );
  // Field errors carry the API's names; the form shows MiB where the API counts bytes.
  if (errors) for (const [api, form] of Object.entries(FORM_NAMES)) if (errors.fields.has(api)) errors.fields.set(form, errors.fields.get(api)!);
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
${field({ name: 'name', label: 'Name', value: v.name, required: true, errors, attrs: { maxlength: '200' } })}
${field({ name: 'maxDocumentUnitsPerMonth', label: 'Document Units a month', type: 'number', value: v.units, required: true, errors, attrs: { min: '0', step: '1', inputmode: 'numeric' } })}
${field({ name: 'maxFileSizeMiB', label: 'Largest file (MiB)', type: 'number', value: v.fileMiB, errors, attrs: { min: '1', step: '1' } })}
${field({ name: 'maxConcurrentJobs', label: 'Unfinished jobs per app', type: 'number', value: v.jobs, errors, attrs: { min: '1', step: '1' } })}
${field({ name: 'maxMiBPerSecond', label: 'Upload rate (MiB per second)', type: 'number', value: v.rateMiB, errors, attrs: { min: '1', step: '1' } })}
${checkbox({ name: 'ocrPdfExtraction', label: 'OCR for scanned PDFs', checked: v.ocr, errors })}
${checkbox({ name: 'advancedPdfExtraction', label: 'Advanced PDF extraction', checked: v.advanced, errors })}
<div class="actions"><button type="submit">Create plan</button></div></form>`
    : ''
}`,
  });
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
        const v: PlanForm = {
          name: form.typed('name'),
          units: form.typed('maxDocumentUnitsPerMonth'),
          fileMiB: form.typed('maxFileSizeMiB'),
          jobs: form.typed('maxConcurrentJobs'),
          rateMiB: form.typed('maxMiBPerSecond'),
          advanced: form.typed('advancedPdfExtraction') === 'true',
          ocr: form.typed('ocrPdfExtraction') === 'true',
        };
        return plansView(page, v, FormErrors.fromProblem(err, [...PLAN_FIELDS, ...Object.values(FORM_NAMES)]), err.status);
      }
    }),
    postForm(d, '/plans/:planId/retire', { params: PlanParams, summary: 'Retire a plan', back: () => `${d.base}/plans` }, async (page) => {
      await page.api.call('retirePlan', { params: { planId: page.ctx.params.planId } });
      return redirect(page.url('/plans?done=retired'));
    }),
  ];
}
