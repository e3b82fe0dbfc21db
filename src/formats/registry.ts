// Every family the service parses, each as it declares itself in its own folder
// (src/formats/<family>/family.ts), in the order the docs list them. Everything else about a
// format — detection, upload parameters, engines, lanes, content schemas — is read from here.
import type { EngineNeed, Family, FamilyDescriptor, FormatDescriptor, RoutingParameter } from './kit/family.js';
import type { JobOptions, Lane } from './kit/options.js';
import type { FormatParser } from './kit/types.js';
import type { OfficeRender } from './settings.js';
import { csvFamily } from './csv/family.js';
import { pdfFamily } from './pdf/family.js';
import { officeFamily } from './office/family.js';
import { emailFamily } from './email/family.js';
import { sqlFamily } from './sql/family.js';
import { gisFamily } from './gis/family.js';
import { cadFamily } from './cad/family.js';
import { parquetFamily } from './parquet/family.js';

export type { Family } from './kit/family.js';

export const FAMILIES: readonly FamilyDescriptor[] = [csvFamily, pdfFamily, officeFamily, emailFamily, sqlFamily, gisFamily, cadFamily, parquetFamily];

export interface FormatInfo {
  format: string;
  family: Family;
  /** Loads the parser inside a worker thread. */
  load: () => Promise<FormatParser>;
}

/** Every format with the family that declares it, in the families' order. */
export const FORMAT_LIST: readonly { descriptor: FormatDescriptor; family: FamilyDescriptor }[] = FAMILIES.flatMap((family) =>
  family.formats.map((descriptor) => ({ descriptor, family })),
);

/** Formats by concrete name (artifact document_format). */
export const FORMATS: Record<string, FormatInfo> = Object.fromEntries(
  FORMAT_LIST.map(({ descriptor: d, family: f }) => [d.format, { format: d.format, family: f.family, load: d.load }]),
);

export function familyOf(format: string): FamilyDescriptor | undefined {
  return FAMILIES.find((f) => f.formats.some((d) => d.format === format));
}

/** Families whose parser is built; uploads of other formats are refused with 415. */
export function isSupported(format: string): boolean {
  return FORMATS[format] !== undefined;
}

export function supportedFormats(): string[] {
  return FORMAT_LIST.map(({ descriptor }) => descriptor.format);
}

/** documentType values accepted at upload (matched case-insensitively, '_' ignored). */
export const DOCUMENT_TYPES: readonly string[] = FORMAT_LIST.map(({ descriptor }) => descriptor.documentType);

/** Every routing parameter, in the families' order. */
export const ROUTING_PARAMETERS: readonly { parameter: RoutingParameter; family: FamilyDescriptor }[] = FAMILIES.flatMap((family) =>
  family.routing.map((parameter) => ({ parameter, family })),
);

/**
 * The lane a job runs in: heavy when its family says so (OCR and Advanced PDF) or when
 * LibreOffice runs for it (up to two soffice processes of its own, each up to a core and a
 * gigabyte), else light. `officeRender` (DOCPARSE_OFFICE_RENDER): whether every DOCX is rendered;
 * by default it is, so DOCX jobs are heavy too.
 */
export function laneFor(format: string, options: JobOptions, officeRender: OfficeRender): Lane {
  if (familyOf(format)?.lane?.(options) === 'heavy') return 'heavy';
  return enginesNeeded(format, options, officeRender).some((n) => n.engine === 'LibreOffice') ? 'heavy' : 'light';
}

/** The engines a document of `format` with `options` needs on the node that parses it. */
export function enginesNeeded(format: string, options: JobOptions, officeRender: OfficeRender): EngineNeed[] {
  return familyOf(format)?.engines(format, options, officeRender) ?? [];
}
