// Plans in SQL: create, read, list, edit, retire.
import { randomUUID } from 'node:crypto';
import type { SqlClient } from '../../db/sql.js';
import { NotFoundError, type NewPlan, type Plan, type PlanChanges } from '../types.js';
import { iso, requireNonNegInt, requirePosInt, requireText, rethrow, type Ts } from './checks.js';

interface PlanRow {
  id: string;
  name: string;
  status: 'usable' | 'retired';
  max_document_units_per_month: number | string;
  advanced_pdf_extraction: boolean;
  ocr_pdf_extraction: boolean;
  max_file_size_bytes: number | string;
  max_concurrent_jobs: number | string;
  max_bytes_per_second: number | string;
  created_at: Ts;
}

const toPlan = (r: PlanRow): Plan => ({
  id: r.id,
  name: r.name,
  status: r.status,
  maxDocumentUnitsPerMonth: Number(r.max_document_units_per_month),
  advancedPdfExtraction: r.advanced_pdf_extraction,
  ocrPdfExtraction: r.ocr_pdf_extraction,
  maxFileSizeBytes: Number(r.max_file_size_bytes),
  maxConcurrentJobs: Number(r.max_concurrent_jobs),
  maxBytesPerSecond: Number(r.max_bytes_per_second),
  createdAt: iso(r.created_at),
});

export async function createPlan(db: SqlClient, p: NewPlan): Promise<Plan> {
  const id = p.id ?? randomUUID();
  const values = [
    id,
    requireText(p.name, 'plan name'),
    requireNonNegInt(p.maxDocumentUnitsPerMonth, 'maxDocumentUnitsPerMonth'),
    Boolean(p.advancedPdfExtraction),
    Boolean(p.ocrPdfExtraction),
    requirePosInt(p.maxFileSizeBytes, 'maxFileSizeBytes'),
    requirePosInt(p.maxConcurrentJobs, 'maxConcurrentJobs'),
    requirePosInt(p.maxBytesPerSecond, 'maxBytesPerSecond'),
  ];
  try {
    const { rows } = await db.query<PlanRow>(
      `INSERT INTO plans (id, name, max_document_units_per_month, advanced_pdf_extraction, ocr_pdf_extraction,
                          max_file_size_bytes, max_concurrent_jobs, max_bytes_per_second)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
      values,
    );
    return toPlan(rows[0]);
  } catch (err) {
    rethrow(err, {}, { plans_pkey: `plan ${id} already exists` });
  }
}

export async function getPlan(db: SqlClient, id: string): Promise<Plan | null> {
  const { rows } = await db.query<PlanRow>('SELECT * FROM plans WHERE id = $1', [id]);
  return rows[0] ? toPlan(rows[0]) : null;
}

export async function listPlans(db: SqlClient): Promise<Plan[]> {
  const { rows } = await db.query<PlanRow>('SELECT * FROM plans ORDER BY created_at, id');
  return rows.map(toPlan);
}

/** Each field an edit may change: its column and its check. */
const EDITABLE: { [K in keyof Required<PlanChanges>]: [column: string, check: (v: NonNullable<PlanChanges[K]>) => unknown] } = {
  name: ['name', (v) => requireText(v, 'plan name')],
  maxDocumentUnitsPerMonth: ['max_document_units_per_month', (v) => requireNonNegInt(v, 'maxDocumentUnitsPerMonth')],
  advancedPdfExtraction: ['advanced_pdf_extraction', (v) => Boolean(v)],
  ocrPdfExtraction: ['ocr_pdf_extraction', (v) => Boolean(v)],
  maxFileSizeBytes: ['max_file_size_bytes', (v) => requirePosInt(v, 'maxFileSizeBytes')],
  maxConcurrentJobs: ['max_concurrent_jobs', (v) => requirePosInt(v, 'maxConcurrentJobs')],
  maxBytesPerSecond: ['max_bytes_per_second', (v) => requirePosInt(v, 'maxBytesPerSecond')],
};

/** Changes the given fields of a plan (usable or retired: its status stays); the others stay as they are. */
export async function updatePlan(db: SqlClient, id: string, changes: PlanChanges): Promise<Plan> {
  const sets: string[] = [];
  const values: unknown[] = [id];
  for (const [field, [column, check]] of Object.entries(EDITABLE) as [keyof PlanChanges, [string, (v: unknown) => unknown]][]) {
    const value = changes[field];
    if (value === undefined) continue;
    values.push(check(value));
    sets.push(`${column} = $${values.length}`);
  }
  const { rows } = sets.length
    ? await db.query<PlanRow>(`UPDATE plans SET ${sets.join(', ')} WHERE id = $1 RETURNING *`, values)
    : await db.query<PlanRow>('SELECT * FROM plans WHERE id = $1', [id]);
  if (!rows[0]) throw new NotFoundError('plan', id);
  return toPlan(rows[0]);
}

export async function retirePlan(db: SqlClient, id: string): Promise<Plan> {
  const { rows } = await db.query<PlanRow>(`UPDATE plans SET status = 'retired', retired_at = COALESCE(retired_at, now()) WHERE id = $1 RETURNING *`, [id]);
  if (!rows[0]) throw new NotFoundError('plan', id);
  return toPlan(rows[0]);
}
