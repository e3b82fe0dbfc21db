// Usage and billing for a month: a chart of Document Units per day, app and family (chart.js,
// drawn from the data table beside it, which screen readers read), each app's quota
// remaining, the month's statement and CSV exports (relayed from the API's own CSV).
import { Type } from '@sinclair/typebox';
import type { Reply, RouteDef } from '../../http/route.js';
import type { AppQuota, Statement, TenantUsage } from '../../tenancy/billing-store.js';
import { html } from './html.js';
import { formatDate, formatNumber, PAGE_HEADERS } from './layout.js';
import { getPage, type Dashboard, type Page } from './page-kit.js';
import { MONTH_PATTERN, TenantParams, tenantPath } from './params.js';

const MonthQuery = { month: Type.Optional(Type.String({ pattern: MONTH_PATTERN })) };

const thisMonth = () => new Date().toISOString().slice(0, 7);

/** The month's days (YYYY-MM-DD), up to today in the current month. */
function daysOf(month: string): string[] {
  const [y, m] = month.split('-').map(Number);
  const last = new Date(Date.UTC(y, m, 0)).getUTCDate();
  const today = new Date().toISOString().slice(0, 10);
  const days: string[] = [];
  for (let d = 1; d <= last; d++) {
    const day = `${month}-${String(d).padStart(2, '0')}`;
    if (day > today) break;
    days.push(day);
  }
  return days;
}

/** The given month and the five before it, newest first. */
function recentMonths(month: string): string[] {
  const [y, m] = month.split('-').map(Number);
  return Array.from({ length: 6 }, (_, i) => new Date(Date.UTC(y, m - 1 - i, 1)).toISOString().slice(0, 7));
}

const families = (byFamily: Record<string, number>) =>
  Object.entries(byFamily)
    .filter(([, n]) => n > 0)
    .map(([f, n]) => `${f}: ${formatNumber(n)}`)
    .join(', ') || '—';

/** An app's monthly quota and what is left of it: its plan's, or the limit of every app without a plan. */
function quotaOf(q: AppQuota): { quota: string; remaining: string } {
  if (q.quota === null) return { quota: '—', remaining: '—' };
  return { quota: `${formatNumber(q.quota)}${q.plan ? '' : ' (no plan)'}`, remaining: formatNumber(q.remaining ?? 0) };
}

async function usageView(page: Page<{ month?: string }>) {
  const tenant = await page.tenant();
  const month = page.ctx.query.month ?? thisMonth();
  const [usage, statement] = await Promise.all([
    page.api.call<TenantUsage>('getTenantUsageByFamily', { params: { tenantId: tenant.id }, query: { month, granularity: 'day' } }),
    page.api.call<Statement>('getStatement', { params: { tenantId: tenant.id, month } }),
  ]);
  const appName = new Map(usage.quotas.map((q) => [q.appId, q.appName ?? `deleted app ${q.appId}`]));
  const name = (id: string) => appName.get(id) ?? id;
  const items = [...usage.items].sort(
    (a, b) => (a.day ?? '').localeCompare(b.day ?? '') || name(a.appId).localeCompare(name(b.appId)) || a.family.localeCompare(b.family),
  );
  const days = daysOf(month);
  for (const i of items) if (i.day && !days.includes(i.day)) days.push(i.day);
  const csv = (path: string) => page.url(tenantPath(tenant.id, `/usage/${path}?month=${month}`));
  return {
    title: 'Usage and billing',
    tenant,
    section: 'usage' as const,
    chart: true,
    body: html`<form method="get" action="${page.url(tenantPath(tenant.id, '/usage'))}" class="actions card">
<div class="field"><label for="f-month">Month (UTC)</label><input type="month" id="f-month" name="month" value="${month}" required pattern="\\d{4}-\\d{2}"></div>
<button type="submit" class="secondary">Show</button></form>
<div class="tiles">
<div class="tile"><span class="figure" id="total-units">${formatNumber(usage.totals.units)}</span> Document Units in ${month}</div>
<div class="tile"><span class="figure">${formatNumber(usage.totals.documents)}</span> documents charged</div>
</div>
<h2 id="daily">Daily units per app and family</h2>
${
  items.length
    ? html`<div class="chart-box"><canvas id="usage-chart" data-chart-table="usage-table" data-days="${JSON.stringify(days)}" role="img" aria-label="Bar chart of the Document Units per day in ${month}, by app and family; the table below holds the same figures." hidden></canvas></div>`
    : html`<p>No units were charged in ${month}.</p>`
}
<div class="table-wrap" tabindex="0" role="region" aria-label="Document Units per day, app and family, ${month}"><table id="usage-table"><caption>Document Units per day, app and family, ${month}</caption>
<thead><tr><th scope="col">Day</th><th scope="col">App</th><th scope="col">Family</th><th scope="col" class="num">Units</th><th scope="col" class="num">Documents</th></tr></thead>
<tbody>${items.map(
      (i) =>
        html`<tr data-day="${i.day}" data-series="${name(i.appId)} · ${i.family}" data-units="${i.units}"><td>${i.day}</td><td>${name(i.appId)}</td><td>${i.family}</td><td class="num">${formatNumber(i.units)}</td><td class="num">${formatNumber(i.documents)}</td></tr>`,
    )}</tbody></table></div>
<h2>Quota remaining</h2>
<div class="table-wrap" tabindex="0" role="region" aria-label="Quota remaining per app, ${month}"><table id="quota-table"><caption class="visually-hidden">Quota remaining per app, ${month}</caption>
<thead><tr><th scope="col">App</th><th scope="col">Plan</th><th scope="col" class="num">Monthly quota</th><th scope="col" class="num">Charged</th><th scope="col" class="num">Remaining</th></tr></thead>
<tbody>${usage.quotas.map((q) => {
      const { quota, remaining } = quotaOf(q);
      return html`<tr><td>${name(q.appId)}</td><td>${q.plan?.name ?? 'none'}</td><td class="num">${quota}</td><td class="num">${formatNumber(q.unitsCharged)}</td><td class="num">${remaining}</td></tr>`;
    })}</tbody></table></div>
<h2 id="statement">Statement for ${month}</h2>
<div class="table-wrap" tabindex="0" role="region" aria-label="Statement of ${tenant.name} for ${month}"><table id="statement-table"><caption class="visually-hidden">Statement of ${tenant.name} for ${month}</caption>
<thead><tr><th scope="col">App</th><th scope="col">Plan</th><th scope="col" class="num">Documents</th><th scope="col" class="num">Units</th><th scope="col">By family</th></tr></thead>
<tbody>${statement.apps.map(
      (a) =>
        html`<tr><td>${name(a.appId)}</td><td>${a.plan?.name ?? 'none'}</td><td class="num">${formatNumber(a.documents)}</td><td class="num">${formatNumber(a.unitsCharged)}</td><td>${families(a.byFamily)}</td></tr>`,
    )}</tbody>
<tfoot><tr><th scope="row" colspan="2">Total</th><td class="num">${formatNumber(statement.totals.documents)}</td><td class="num" id="statement-total">${formatNumber(statement.totals.units)}</td><td>${families(statement.totals.byFamily)}</td></tr></tfoot></table></div>
<p class="hint">Overage: ${statement.overage.note}. Generated ${formatDate(statement.generatedAt)}.</p>
<h2>Exports</h2>
<ul>
<li><a href="${csv('statement.csv')}" download>Statement for ${month} (CSV)</a></li>
<li><a href="${csv('daily.csv')}" download>Units per day, app and family (CSV)</a></li>
<li><a href="${csv('lines.csv')}" download>Every charge of ${month} (CSV)</a></li>
</ul>
<h2>Earlier statements</h2>
<ul>${recentMonths(month)
      .slice(1)
      .map((m) => html`<li><a href="${page.url(tenantPath(tenant.id, `/usage?month=${m}`))}">${m}</a></li>`)}</ul>`,
  };
}

/** The API's CSV as a download, with the page headers. */
const relay = (reply: Reply): Reply => ({ ...reply, headers: { ...PAGE_HEADERS, ...reply.headers } });

export function usagePages(d: Dashboard): RouteDef[] {
  const csvRoute = (file: string, summary: string, call: (page: Page<{ month?: string }>, tenantId: string, month: string) => Promise<Reply>) =>
    getPage<{ month?: string }>(d, `/t/:tenantId/usage/${file}`, { params: TenantParams, query: MonthQuery, summary }, async (page) =>
      relay(await call(page, page.ctx.params.tenantId, page.ctx.query.month ?? thisMonth())),
    );
  return [
    getPage<{ month?: string }>(d, '/t/:tenantId/usage', { params: TenantParams, query: MonthQuery, summary: 'Usage and billing' }, usageView),
    csvRoute('statement.csv', 'A monthly statement as CSV', (page, tenantId, month) =>
      page.api.reply('getStatement', { params: { tenantId, month }, query: { format: 'csv' } }),
    ),
    csvRoute('daily.csv', 'Units per day, app and family as CSV', (page, tenantId, month) =>
      page.api.reply('getTenantUsageByFamily', { params: { tenantId }, query: { month, granularity: 'day', format: 'csv' } }),
    ),
    csvRoute('lines.csv', "A month's charges as CSV", (page, tenantId, month) =>
      page.api.reply('exportTenantUsageLines', { params: { tenantId }, query: { month } }),
    ),
  ];
}
