// Plans: operators define them (quota, OCR/Advanced flags, max file size, unfinished jobs,
// upload bytes/s), edit and retire them; everyone may list the usable ones. An edit applies
// at once to every app on the plan (this month's quota, the next upload's limits); a retired
// plan can be edited too — it stays retired — since apps kept on it still show its terms.
import { Type } from '@sinclair/typebox';
import type { RouteDef } from '../../http/route.js';
import type { NewPlan, Plan, PlanChanges } from '../../tenancy/types.js';
import { changed, manageErrors, manageRoute, ok, requireOperator, type ManageDeps } from './kit.js';
import { DisplayName, list, PlanIdParams, PlanSchema } from './schemas.js';

/** Defaults of a new plan, here and in `docparse admin plan create` (src/cli/commands/plan.ts): 256 MiB files, 8 unfinished jobs, 64 MiB/s. */
export const PLAN_DEFAULTS = { maxFileSizeBytes: 256 * 1024 ** 2, maxConcurrentJobs: 8, maxBytesPerSecond: 64 * 1024 ** 2 };

const CreatePlan = Type.Object(
  {
    name: DisplayName("The plan's name."),
    maxDocumentUnitsPerMonth: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
    advancedPdfExtraction: Type.Optional(Type.Boolean({ default: false })),
    ocrPdfExtraction: Type.Optional(Type.Boolean({ default: false })),
    maxFileSizeBytes: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: `Default ${PLAN_DEFAULTS.maxFileSizeBytes}.` })),
    maxConcurrentJobs: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 1_000_000, description: `Unfinished jobs an app may have; default ${PLAN_DEFAULTS.maxConcurrentJobs}.` }),
    ),
    maxBytesPerSecond: Type.Optional(
      Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: `Upload bytes per second; default ${PLAN_DEFAULTS.maxBytesPerSecond}.` }),
    ),
  },
  { additionalProperties: false },
);

type CreateBody = Partial<NewPlan> & { name: string; maxDocumentUnitsPerMonth: number };

/** The fields of a plan's terms, as an edit names them (and its audit diff). */
const TERMS = [
  'name',
  'maxDocumentUnitsPerMonth',
  'advancedPdfExtraction',
  'ocrPdfExtraction',
  'maxFileSizeBytes',
  'maxConcurrentJobs',
  'maxBytesPerSecond',
] as const satisfies readonly (keyof Plan & keyof PlanChanges)[];

/** The same fields as a new plan, every one optional (and no defaults): an edit changes only what it names. */
const EditPlan = Type.Object(
  {
    name: Type.Optional(CreatePlan.properties.name),
    maxDocumentUnitsPerMonth: Type.Optional(CreatePlan.properties.maxDocumentUnitsPerMonth),
    advancedPdfExtraction: Type.Optional(Type.Boolean()),
    ocrPdfExtraction: Type.Optional(Type.Boolean()),
    maxFileSizeBytes: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
    maxConcurrentJobs: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'Unfinished jobs an app may have.' })),
    maxBytesPerSecond: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Upload bytes per second.' })),
  },
  { additionalProperties: false, minProperties: 1 },
);

export function planRoutes(deps: ManageDeps): RouteDef[] {
  return [
    manageRoute<Record<string, never>, Record<string, never>, CreateBody>(deps, {
      method: 'POST',
      path: '/plans',
      operationId: 'createPlan',
      summary: 'Define a usable plan (operators only)',
      tags: ['plans'],
      body: CreatePlan,
      responses: { 201: { description: 'The plan.', schema: PlanSchema } },
      errors: ['operator_required'],
      handler: async ({ principal, body, audit }) => {
        requireOperator(principal, 'define plans');
        const plan = await deps.store.createPlan({
          name: body.name,
          maxDocumentUnitsPerMonth: body.maxDocumentUnitsPerMonth,
          advancedPdfExtraction: body.advancedPdfExtraction ?? false,
          ocrPdfExtraction: body.ocrPdfExtraction ?? false,
          maxFileSizeBytes: body.maxFileSizeBytes ?? PLAN_DEFAULTS.maxFileSizeBytes,
          maxConcurrentJobs: body.maxConcurrentJobs ?? PLAN_DEFAULTS.maxConcurrentJobs,
          maxBytesPerSecond: body.maxBytesPerSecond ?? PLAN_DEFAULTS.maxBytesPerSecond,
        });
        const { id: _id, createdAt: _at, status: _s, ...terms } = plan;
        await audit({ action: 'plan.create', tenantId: null, objectType: 'plan', objectId: plan.id, diff: terms });
        return ok(plan, 201);
      },
    }),
    manageRoute<Record<string, never>, { status?: 'usable' | 'retired' }>(deps, {
      method: 'GET',
      path: '/plans',
      operationId: 'listPlans',
      summary: 'List plans (operators: all, or by status; others: the usable ones)',
      tags: ['plans'],
      query: Type.Object({ status: Type.Optional(Type.Union([Type.Literal('usable'), Type.Literal('retired')])) }, { additionalProperties: false }),
      responses: { 200: { description: 'The plans.', schema: list(PlanSchema) } },
      handler: async ({ principal, query }) => {
        const status = principal.isOperator ? query.status : 'usable';
        const plans = await deps.store.listPlans();
        return ok({ items: status ? plans.filter((p) => p.status === status) : plans });
      },
    }),
    manageRoute<{ planId: string }>(deps, {
      method: 'GET',
      path: '/plans/:planId',
      operationId: 'getPlan',
      summary: 'Get a plan',
      tags: ['plans'],
      params: PlanIdParams,
      responses: { 200: { description: 'The plan.', schema: PlanSchema } },
      errors: ['plan_not_found'],
      handler: async ({ params }) => {
        const plan = await deps.store.getPlan(params.planId);
        if (!plan) throw manageErrors.notFound('plan', params.planId);
        return ok(plan);
      },
    }),
    manageRoute<{ planId: string }, Record<string, never>, PlanChanges>(deps, {
      method: 'PATCH',
      path: '/plans/:planId',
      operationId: 'updatePlan',
      summary: "Edit a plan's name and terms (operators only)",
      description:
        'Changes only the fields given; the new terms apply at once (within seconds) to every app on the plan: its quota this month, its limits on the next upload. A retired plan can be edited too and stays retired. Audited as plan.update with each changed field before and after; an edit that changes nothing is not audited.',
      tags: ['plans'],
      params: PlanIdParams,
      body: EditPlan,
      responses: { 200: { description: 'The plan as it is now.', schema: PlanSchema } },
      errors: ['operator_required', 'plan_not_found'],
      handler: async ({ principal, params, body, audit }) => {
        requireOperator(principal, 'edit plans');
        const before = await deps.store.getPlan(params.planId);
        if (!before) throw manageErrors.notFound('plan', params.planId);
        const plan = await deps.store.updatePlan(before.id, body);
        const diff = changed(before, plan, [...TERMS]);
        if (Object.keys(diff).length) await audit({ action: 'plan.update', tenantId: null, objectType: 'plan', objectId: plan.id, diff });
        return ok(plan);
      },
    }),
    manageRoute<{ planId: string }>(deps, {
      method: 'POST',
      path: '/plans/:planId/retire',
      operationId: 'retirePlan',
      summary: 'Retire a plan: apps on it get no tokens until given another (operators only)',
      tags: ['plans'],
      params: PlanIdParams,
      responses: {
        200: { description: 'The retired plan and how many apps are on it.', schema: Type.Object({ plan: PlanSchema, appsOnPlan: Type.Integer() }) },
      },
      errors: ['operator_required', 'plan_not_found'],
      handler: async ({ principal, params, audit }) => {
        requireOperator(principal, 'retire plans');
        const before = await deps.store.getPlan(params.planId);
        if (!before) throw manageErrors.notFound('plan', params.planId);
        const plan = await deps.store.retirePlan(before.id);
        const appsOnPlan = (await deps.store.listApps()).filter((a) => a.planId === plan.id).length;
        if (before.status !== plan.status)
          await audit({
            action: 'plan.retire',
            tenantId: null,
            objectType: 'plan',
            objectId: plan.id,
            diff: { status: { from: before.status, to: plan.status } },
          });
        return ok({ plan, appsOnPlan });
      },
    }),
  ];
}
