// How `docparse admin` commands print: one JSON value per line with --json, else lines for
// a person (tables, one block per tenant, app or plan). The same lines wherever the command
// ran (local database, the node holding the data dir, a remote node's API). Every line goes
// out through terminalSafe (CommandTable.run), so a name written before names were checked
// cannot drive the terminal: its control and bidirectional characters show as \u001b.
import { terminalSafe } from '../http/text-rules.js';
import type { MailView } from '../mail/view.js';
import type { App, Plan, Tenant } from '../tenancy/types.js';
import { UsageError } from './command-values.js';

export type Out = (line: string) => void;

export interface Printer {
  out: Out;
  json: boolean;
}

export function emit(p: Printer, value: unknown, human: string[]): void {
  if (p.json) p.out(JSON.stringify(value));
  else for (const line of human) p.out(line);
}

/** Prints a CSV document line by line (the terminal ends lines with LF). */
export function emitCsv(p: Printer, text: string): void {
  if (p.json) throw new UsageError('--csv and --json exclude each other');
  for (const line of text.replace(/\r\n$/, '').split('\r\n')) p.out(line);
}

/** Columns padded to their widest cell; the last one is not padded. Cells are escaped first, so the columns stay aligned. */
export function table(rows: string[][]): string[] {
  const cells = rows.map((r) => r.map((c) => terminalSafe(c)));
  const widths = cells[0].map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  return cells.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  '));
}

/** What a command prints, as it reaches the terminal: escaped, line feeds kept (usage texts hold some). */
export function terminalOut(out: Out): Out {
  return (line) => out(terminalSafe(line, { keepLineFeeds: true }));
}

export function tenantLines(t: Tenant): string[] {
  return [
    `Tenant ${t.id} "${t.name}"`,
    `  state:        ${t.state}`,
    `  contact:      ${t.contactEmail ?? '-'}`,
    `  created:      ${t.createdAt}`,
    `  activated:    ${t.activatedAt ?? '-'}`,
  ];
}

export function appLines(a: Omit<App, 'secretHash'>): string[] {
  return [
    `App ${a.id} "${a.name}"`,
    `  tenant:       ${a.tenantId}`,
    `  client id:    ${a.clientId}`,
    `  region:       ${a.licenseRegion ?? '-'}`,
    `  db code:      ${a.dbCode ?? '-'}`,
    `  domains:      ${a.allowedDomains.length ? a.allowedDomains.join(', ') : '-'}`,
    `  plan:         ${a.planId ?? 'none'}`,
    `  enabled:      ${a.enabled ? 'yes' : 'no'}`,
  ];
}

export function planLines(p: Plan): string[] {
  return [
    `Plan ${p.id} "${p.name}" (${p.status})`,
    `  units/month:  ${p.maxDocumentUnitsPerMonth}`,
    `  advanced PDF: ${p.advancedPdfExtraction ? 'yes' : 'no'}`,
    `  OCR PDF:      ${p.ocrPdfExtraction ? 'yes' : 'no'}`,
    `  max file:     ${p.maxFileSizeBytes} bytes`,
    `  concurrency:  ${p.maxConcurrentJobs} jobs`,
    `  upload rate:  ${p.maxBytesPerSecond} bytes/s`,
  ];
}

/** An outbox e-mail's state in a few words. */
export function mailStatus(m: Pick<MailView, 'status' | 'sentAt' | 'withdrawnAt' | 'attempts' | 'nextAttemptAt'>): string {
  if (m.status === 'sent') return `sent ${m.sentAt}`;
  if (m.status === 'withdrawn') return `withdrawn ${m.withdrawnAt}`;
  if (m.status === 'kept') return 'kept (no DOCPARSE_SMTP_URL)';
  return m.attempts === 0 ? 'queued' : `retrying (${m.attempts} attempt${m.attempts === 1 ? '' : 's'}, next ${m.nextAttemptAt})`;
}
