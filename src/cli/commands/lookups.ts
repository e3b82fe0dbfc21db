// Finding what a command names: a missing tenant or app is NotFoundError ("app … not found",
// exit 1), a plan is found by id or by its name.
import { NotFoundError, type Plan, type Tenant } from '../../tenancy/types.js';
import type { AdminApi, PublicApp } from '../admin-api.js';

export async function mustTenant(api: AdminApi, id: string): Promise<Tenant> {
  const t = await api.tenant(id);
  if (!t) throw new NotFoundError('tenant', id);
  return t;
}

export async function mustApp(api: AdminApi, id: string): Promise<PublicApp> {
  const a = await api.app(id);
  if (!a) throw new NotFoundError('app', id);
  return a;
}

/** A plan by id, or by name when exactly one usable plan has that name. */
async function resolvePlan(api: AdminApi, ref: string): Promise<Plan> {
  const byId = await api.plan(ref);
  if (byId) return byId;
  const named = (await api.listPlans()).filter((p) => p.name === ref && p.status === 'usable');
  if (named.length === 1) return named[0];
  if (named.length > 1) throw new Error(`several usable plans are named "${ref}"; give the plan id`);
  throw new NotFoundError('plan', ref);
}

/** A plan an app may be given: apps on a retired plan cannot get tokens. */
export async function usablePlan(api: AdminApi, ref: string): Promise<Plan> {
  const plan = await resolvePlan(api, ref);
  if (plan.status !== 'usable') {
    throw new Error(`plan ${plan.id} "${plan.name}" is retired; apps on a retired plan cannot get tokens`);
  }
  return plan;
}
