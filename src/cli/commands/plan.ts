// `docparse admin plan …`: create, update, retire, list.
import type { PlanChanges } from '../../tenancy/types.js';
import type { AdminCommand } from '../command-table.js';
import { emit, planLines, table } from '../command-output.js';
import { parseByteSize, parseCount, required, str, UsageError, type Values } from '../command-values.js';

/** Defaults of `plan create`, the management API's too (src/manage/api/plan-routes.ts). */
const DEFAULT_MAX_FILE_SIZE = '256MiB';
const DEFAULT_MAX_CONCURRENT = 8;
const DEFAULT_MAX_BYTES_PER_SECOND = '64MiB';

/** A yes/no option of `plan update` (a flag can only say yes). */
function yesNo(v: Values, name: string): boolean | undefined {
  const text = str(v, name);
  if (text === undefined) return undefined;
  if (/^(yes|true|on)$/i.test(text)) return true;
  if (/^(no|false|off)$/i.test(text)) return false;
  throw new UsageError(`--${name}: expected yes or no, got "${text}"`);
}

/** The changes `plan update` was given: only the options named. */
function planChanges(v: Values): PlanChanges {
  const size = (name: string) => (str(v, name) === undefined ? undefined : parseByteSize(str(v, name)!, `--${name}`));
  const count = (name: string, min: number) => (str(v, name) === undefined ? undefined : parseCount(str(v, name)!, `--${name}`, min));
  const changes: PlanChanges = {
    name: str(v, 'name') === undefined ? undefined : required(v, 'name'),
    maxDocumentUnitsPerMonth: count('units', 0),
    advancedPdfExtraction: yesNo(v, 'advanced'),
    ocrPdfExtraction: yesNo(v, 'ocr'),
    maxFileSizeBytes: size('max-file-size'),
    maxConcurrentJobs: count('max-concurrent', 1),
    maxBytesPerSecond: size('max-bytes-per-second'),
  };
  const given = Object.fromEntries(Object.entries(changes).filter(([, x]) => x !== undefined)) as PlanChanges;
  if (Object.keys(given).length === 0)
    throw new UsageError('name at least one change: --name, --units, --advanced, --ocr, --max-file-size, --max-concurrent or --max-bytes-per-second');
  return given;
}

export const planCommands: AdminCommand[] = [
  {
    name: 'plan create',
    usage: 'plan create --name NAME --units UNITS_PER_MONTH [--advanced] [--ocr] [--max-file-size SIZE] [--max-concurrent N] [--max-bytes-per-second SIZE]',
    summary: `create a usable plan (defaults: max file ${DEFAULT_MAX_FILE_SIZE}, ${DEFAULT_MAX_CONCURRENT} concurrent jobs, ${DEFAULT_MAX_BYTES_PER_SECOND}/s)`,
    options: {
      name: { type: 'string' },
      units: { type: 'string' },
      advanced: { type: 'boolean' },
      ocr: { type: 'boolean' },
      'max-file-size': { type: 'string' },
      'max-concurrent': { type: 'string' },
      'max-bytes-per-second': { type: 'string' },
    },
    positionals: 0,
    async run(ctx) {
      const v = ctx.values;
      const plan = await ctx.api.createPlan({
        name: required(v, 'name'),
        maxDocumentUnitsPerMonth: parseCount(required(v, 'units'), '--units', 0),
        advancedPdfExtraction: v.advanced === true,
        ocrPdfExtraction: v.ocr === true,
        maxFileSizeBytes: parseByteSize(str(v, 'max-file-size') ?? DEFAULT_MAX_FILE_SIZE, '--max-file-size'),
        maxConcurrentJobs: parseCount(str(v, 'max-concurrent') ?? String(DEFAULT_MAX_CONCURRENT), '--max-concurrent', 1),
        maxBytesPerSecond: parseByteSize(str(v, 'max-bytes-per-second') ?? DEFAULT_MAX_BYTES_PER_SECOND, '--max-bytes-per-second'),
      });
      emit(ctx, plan, ['Created plan.', ...planLines(plan)]);
    },
  },
  {
    name: 'plan update',
    usage:
      'plan update PLAN_ID [--name NAME] [--units UNITS_PER_MONTH] [--advanced yes|no] [--ocr yes|no] [--max-file-size SIZE] [--max-concurrent N] [--max-bytes-per-second SIZE]',
    summary: "change a plan's name and terms (only those given; at once for every app on it; a retired plan stays retired)",
    options: {
      name: { type: 'string' },
      units: { type: 'string' },
      advanced: { type: 'string' },
      ocr: { type: 'string' },
      'max-file-size': { type: 'string' },
      'max-concurrent': { type: 'string' },
      'max-bytes-per-second': { type: 'string' },
    },
    positionals: 1,
    async run(ctx) {
      const plan = await ctx.api.updatePlan(ctx.positionals[0], planChanges(ctx.values));
      emit(ctx, plan, ['Plan updated.', ...planLines(plan)]);
    },
  },
  {
    name: 'plan retire',
    usage: 'plan retire PLAN_ID',
    summary: 'retire a plan (apps on it can no longer get tokens)',
    options: {},
    positionals: 1,
    async run(ctx) {
      const plan = await ctx.api.retirePlan(ctx.positionals[0]);
      const onPlan = (await ctx.api.listApps()).filter((a) => a.planId === plan.id).length;
      emit(ctx, plan, [
        'Plan retired.',
        ...planLines(plan),
        onPlan > 0 ? `${onPlan} app(s) on this plan can no longer get tokens until given another plan.` : 'No app is on this plan.',
      ]);
    },
  },
  {
    name: 'plan list',
    usage: 'plan list',
    summary: 'list plans',
    options: {},
    positionals: 0,
    async run(ctx) {
      const list = await ctx.api.listPlans();
      emit(
        ctx,
        list,
        list.length === 0
          ? ['No plans.']
          : table([
              ['ID', 'STATUS', 'UNITS/MONTH', 'ADV', 'OCR', 'MAX FILE', 'CONC', 'BYTES/S', 'NAME'],
              ...list.map((p) => [
                p.id,
                p.status,
                String(p.maxDocumentUnitsPerMonth),
                p.advancedPdfExtraction ? 'yes' : 'no',
                p.ocrPdfExtraction ? 'yes' : 'no',
                String(p.maxFileSizeBytes),
                String(p.maxConcurrentJobs),
                String(p.maxBytesPerSecond),
                p.name,
              ]),
            ]),
      );
    },
  },
];
