// Path parameters of the dashboard's pages (checked like the API's: ids of at most 200 chars).
import { Type } from '@sinclair/typebox';

const Id = Type.String({ minLength: 1, maxLength: 200 });
export const TenantParams = Type.Object({ tenantId: Id });
export const AppParams = Type.Object({ tenantId: Id, appId: Id });
export const PlanParams = Type.Object({ planId: Id });
export const MONTH_PATTERN = '^\\d{4}-(0[1-9]|1[0-2])$';
export const tenantPath = (tenantId: string, rest = '') => `/t/${encodeURIComponent(tenantId)}${rest}`;
