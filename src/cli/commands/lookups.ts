// Finding what a command names, the same way against any backend: a missing tenant or app
// is NotFoundError ("app … not found", exit 1), a plan is found by id or by its name.
import { NotFoundError, type App, type ControlPlaneStore, type Plan, type Tenant } from '../../tenancy/types.js';

export async function mustTenant(store: ControlPlaneStore, id: string): Promise<Tenant> {
  const t = await store.getTenant(id);
  if (!t) throw new NotFoundError('tenant', id);
  return t;
}

export async function mustApp(store: ControlPlaneStore, id: string): Promise<App> {
  const a = await store.getApp(id);
  if (!a) throw new NotFoundError('app', id);
  return a;
}

/** A plan by id, or by name when exactly one usable plan has that name. */
async function resolvePlan(store: ControlPlaneStore, ref: string): Promise<Plan> {
  const byId = await store.getPlan(ref);
  if (byId) return byId;
  const named = (await store.listPlans()).filter((p) => p.name === ref && p.status === 'usable');
  if (named.length === 1) return named[0];
  if (named.length > 1) throw new Error(`several usable plans are named "${ref}"; give the plan id`);
  throw new NotFoundError('plan', ref);
}

/** A plan an app may be given: apps on a retired plan cannot get tokens. */
export async function usablePlan(store: ControlPlaneStore, ref: string): Promise<Plan> {
  const plan = await resolvePlan(store, ref);
  if (plan.status !== 'usable') {
    throw new Error(`plan ${plan.id} "${plan.name}" is retired; apps on a retired plan cannot get tokens`);
  }
  return plan;
}
