// The dashboard's progressive enhancement, run in the browser: copy buttons, the usage chart
// (drawn from the page's own data table, so chart and table always agree) and the storage
// provider presets. Written as a function so it is type-checked; assets.ts serves its source.
// Without JavaScript every page still works: the secret is on the page, the table is there.

export function dashboardClient(): void {
  const each = <T extends Element>(sel: string, fn: (el: T) => void) => document.querySelectorAll<T>(sel).forEach(fn);

  // Copy buttons: <button data-copy="ID" hidden> copies the text of #ID, says so in a live region.
  each<HTMLButtonElement>('button[data-copy]', (button) => {
    const target = document.getElementById(button.dataset.copy ?? '');
    const status = document.getElementById(button.dataset.copyStatus ?? '');
    if (!target) return;
    button.hidden = false;
    button.addEventListener('click', () => {
      const text = (target.textContent ?? '').trim();
      const done = (message: string) => {
        if (status) status.textContent = message;
      };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(
          () => done('Copied to the clipboard.'),
          () => done('Could not copy: select the text and copy it by hand.'),
        );
      } else {
        const range = document.createRange();
        range.selectNodeContents(target);
        const sel = window.getSelection();
        sel?.removeAllRanges();
        sel?.addRange(range);
        done(document.execCommand('copy') ? 'Copied to the clipboard.' : 'Selected: press Ctrl+C (or ⌘C) to copy.');
      }
    });
  });

  // Storage presets: choosing a provider fills the endpoint template, the region, the
  // addressing and the checksum mode from the option's data, and shows the account id field
  // where the template needs one. Only on a change: a form shown again keeps what was typed.
  each<HTMLSelectElement>('select[data-presets]', (select) => {
    const form = select.form;
    if (!form) return;
    const input = (name: string) => form.elements.namedItem(name) as HTMLInputElement | HTMLSelectElement | null;
    const hint = document.getElementById(select.dataset.presets ?? '');
    const accountField = document.getElementById('account-id-field');
    const apply = () => {
      const opt = select.selectedOptions[0];
      if (!opt) return;
      const d = opt.dataset;
      const endpoint = input('endpoint');
      const region = input('region');
      const pathStyle = input('forcePathStyle') as HTMLInputElement | null;
      const checksums = input('checksums');
      if (endpoint) endpoint.value = d.endpoint ?? '';
      if (region) {
        region.value = d.region ?? '';
        (region as HTMLInputElement).readOnly = d.regionFixed === 'true';
      }
      if (pathStyle) pathStyle.checked = d.pathStyle === 'true';
      if (checksums && d.checksums) checksums.value = d.checksums;
      if (accountField) accountField.hidden = d.accountId !== 'true';
      if (hint) hint.textContent = d.hint ?? '';
    };
    select.addEventListener('change', apply);
  });

  // Usage chart: <canvas data-chart-table="ID"> drawn from the rows of table #ID
  // (<tr data-day data-series data-units>), one stacked bar per day, one colour per series.
  const ChartCtor = (window as unknown as { Chart?: new (el: HTMLCanvasElement, cfg: unknown) => unknown }).Chart;
  each<HTMLCanvasElement>('canvas[data-chart-table]', (canvas) => {
    const table = document.getElementById(canvas.dataset.chartTable ?? '');
    if (!table || !ChartCtor) return;
    const days: string[] = JSON.parse(canvas.dataset.days ?? '[]');
    const series = new Map<string, number[]>();
    table.querySelectorAll<HTMLTableRowElement>('tr[data-series]').forEach((row) => {
      const name = row.dataset.series ?? '';
      const i = days.indexOf(row.dataset.day ?? '');
      if (i < 0) return;
      if (!series.has(name))
        series.set(
          name,
          days.map(() => 0),
        );
      series.get(name)![i] += Number(row.dataset.units ?? 0);
    });
    const palette = ['#0b4f94', '#c25e00', '#146c2e', '#7b2d8e', '#a1121b', '#00707a', '#5c5c00', '#3d3d3d'];
    new ChartCtor(canvas, {
      type: 'bar',
      data: {
        labels: days.map((d) => d.slice(8)),
        datasets: [...series].map(([label, data], i) => ({ label, data, backgroundColor: palette[i % palette.length] })),
      },
      options: {
        maintainAspectRatio: false,
        animation: false,
        scales: {
          x: { stacked: true, title: { display: true, text: 'Day of month (UTC)' } },
          y: { stacked: true, beginAtZero: true, ticks: { precision: 0 }, title: { display: true, text: 'Document Units' } },
        },
        plugins: { legend: { position: 'bottom' } },
      },
    });
    canvas.hidden = false;
  });
}
