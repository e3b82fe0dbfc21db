// The S3-compatible services a tenant's storage may be on, each with what differs between
// them: the endpoint (a template with {region} and {accountId}), the regions it has and the
// region it signs with, path-style or virtual-hosted addressing, and whether it takes the
// CRC checksums the AWS SDK sends by default (several reject or mangle them: those get
// checksums only where the S3 API requires one). `custom` is any other service, its endpoint
// template given by the tenant. The API lists these (GET /manage/v1/storage-presets), the
// dashboard's storage form fills its fields from them, and a new storage config is resolved
// against its preset before its live check.

import type { ChecksumMode } from '../tenancy/types.js';

/** When the SDK sends request checksums and validates response ones (its two settings). */
export type { ChecksumMode };
export const CHECKSUM_MODES: readonly ChecksumMode[] = ['when_required', 'when_supported'];

export const STORAGE_PROVIDERS = ['s3', 'r2', 'b2', 'wasabi', 'spaces', 'gcs-s3', 'minio', 'custom'] as const;
export type StorageProvider = (typeof STORAGE_PROVIDERS)[number];
/** Earlier names still accepted on input, and what they are now. */
export const PROVIDER_ALIASES: Readonly<Record<string, StorageProvider>> = { 'other-s3': 'custom' };

export interface RegionRule {
  /** Used when none is given. */
  default: string;
  /** The only region the service takes (R2 and GCS sign with `auto`); others are refused. */
  fixed: boolean;
  /** A region the service has must match this (anchored), when not fixed; null: anything. */
  pattern: string | null;
  examples: string[];
  /** The region requests are signed with when it is not the region itself (Spaces signs us-east-1 whatever its region). */
  signingRegion: string | null;
}

export interface StoragePreset {
  id: StorageProvider;
  label: string;
  /** With {region} and/or {accountId}; null: the tenant gives the endpoint (which may use both too). */
  endpointTemplate: string | null;
  /** The template needs the account id (R2). */
  needsAccountId: boolean;
  region: RegionRule;
  forcePathStyle: boolean;
  checksums: ChecksumMode;
  /** One sentence for the form: what to give and where to find it. */
  hint: string;
}

const anyRegion = (def: string, examples: string[]): RegionRule => ({ default: def, fixed: false, pattern: null, examples, signingRegion: null });

export const STORAGE_PRESETS: readonly StoragePreset[] = [
  {
    id: 's3',
    label: 'Amazon S3',
    endpointTemplate: 'https://s3.{region}.amazonaws.com',
    needsAccountId: false,
    region: {
      default: 'us-east-1',
      fixed: false,
      pattern: '[a-z]{2}(-gov|-iso[a-z]*)?-[a-z]+-[0-9]',
      examples: ['us-east-1', 'eu-west-1', 'ap-southeast-2'],
      signingRegion: null,
    },
    forcePathStyle: false,
    checksums: 'when_supported',
    hint: 'Give the bucket’s region (e.g. eu-west-1); the endpoint follows from it.',
  },
  {
    id: 'r2',
    label: 'Cloudflare R2',
    endpointTemplate: 'https://{accountId}.r2.cloudflarestorage.com',
    needsAccountId: true,
    region: { default: 'auto', fixed: true, pattern: null, examples: ['auto'], signingRegion: null },
    forcePathStyle: true,
    checksums: 'when_required',
    hint: 'Give your Cloudflare account id (R2 → Overview); the region is always auto. Use an R2 API token’s access key id and secret.',
  },
  {
    id: 'b2',
    label: 'Backblaze B2',
    endpointTemplate: 'https://s3.{region}.backblazeb2.com',
    needsAccountId: false,
    region: {
      default: 'us-west-004',
      fixed: false,
      pattern: '[a-z]{2}-[a-z]+-[0-9]{3}',
      examples: ['us-west-004', 'us-east-005', 'eu-central-003'],
      signingRegion: null,
    },
    forcePathStyle: false,
    checksums: 'when_required',
    hint: 'The region is in the bucket’s S3 endpoint (s3.us-west-004.backblazeb2.com → us-west-004); use an application key’s keyID and applicationKey.',
  },
  {
    id: 'wasabi',
    label: 'Wasabi',
    endpointTemplate: 'https://s3.{region}.wasabisys.com',
    needsAccountId: false,
    region: {
      default: 'us-east-1',
      fixed: false,
      pattern: '[a-z]{2}-[a-z]+-[0-9]',
      examples: ['us-east-1', 'eu-central-1', 'ap-northeast-1'],
      signingRegion: null,
    },
    forcePathStyle: false,
    checksums: 'when_required',
    hint: 'Give the bucket’s region (e.g. eu-central-1); the endpoint follows from it.',
  },
  {
    id: 'spaces',
    label: 'DigitalOcean Spaces',
    endpointTemplate: 'https://{region}.digitaloceanspaces.com',
    needsAccountId: false,
    region: { default: 'nyc3', fixed: false, pattern: '[a-z]{3}[0-9]', examples: ['nyc3', 'ams3', 'fra1', 'sgp1'], signingRegion: 'us-east-1' },
    forcePathStyle: false,
    checksums: 'when_required',
    hint: 'Give the Space’s datacenter (e.g. ams3); use a Spaces access key.',
  },
  {
    id: 'gcs-s3',
    label: 'Google Cloud Storage (S3 interoperability)',
    endpointTemplate: 'https://storage.googleapis.com',
    needsAccountId: false,
    region: { default: 'auto', fixed: true, pattern: null, examples: ['auto'], signingRegion: null },
    forcePathStyle: true,
    checksums: 'when_required',
    hint: 'Use an HMAC key (Cloud Storage → Settings → Interoperability); the region is always auto.',
  },
  {
    id: 'minio',
    label: 'MinIO',
    endpointTemplate: null,
    needsAccountId: false,
    region: anyRegion('us-east-1', ['us-east-1']),
    forcePathStyle: true,
    checksums: 'when_required',
    hint: 'Give your MinIO server’s address (e.g. https://minio.example.com:9000); path-style addressing.',
  },
  {
    id: 'custom',
    label: 'Another S3-compatible service',
    endpointTemplate: null,
    needsAccountId: false,
    region: anyRegion('us-east-1', ['us-east-1']),
    forcePathStyle: true,
    checksums: 'when_required',
    hint: 'Give the service’s S3 endpoint; it may use {region} and {accountId}. Most services need path-style addressing and checksums only when required.',
  },
];

/** The preset of a provider name (an earlier name too), or null when there is none. */
export function presetFor(provider: string): StoragePreset | null {
  const id = PROVIDER_ALIASES[provider] ?? provider;
  return STORAGE_PRESETS.find((p) => p.id === id) ?? null;
}

export interface StorageSettingsInput {
  provider?: string;
  endpoint?: string;
  region?: string;
  accountId?: string;
  forcePathStyle?: boolean;
  checksums?: ChecksumMode;
}

export interface ResolvedStorageSettings {
  provider: StorageProvider;
  endpoint: string;
  region: string;
  forcePathStyle: boolean;
  checksums: ChecksumMode;
}

/** A setting the preset refuses: which one, and why (said as the end of "The <parameter> …"). */
export class PresetRuleError extends Error {
  constructor(
    readonly parameter: 'provider' | 'endpoint' | 'region' | 'accountId',
    readonly reason: string,
  ) {
    super(`${parameter} ${reason}`);
    this.name = 'PresetRuleError';
  }
}

const ACCOUNT_ID = /^[A-Za-z0-9-]{1,64}$/;

/**
 * What a new storage config is, from what the tenant gave and its preset: the endpoint (theirs,
 * or the preset's template) with {region} and {accountId} filled, the region checked against the
 * preset's rule, path style and checksum mode defaulting to the preset's.
 */
export function resolveStorageSettings(input: StorageSettingsInput): ResolvedStorageSettings {
  const preset = presetFor(input.provider ?? 's3');
  if (!preset) throw new PresetRuleError('provider', `must be one of ${STORAGE_PROVIDERS.join(', ')}`);
  const rule = preset.region;
  const region = input.region?.trim() || rule.default;
  if (rule.fixed && region !== rule.default) throw new PresetRuleError('region', `of ${preset.label} is always ${rule.default}`);
  if (rule.pattern && !new RegExp(`^(?:${rule.pattern})$`).test(region)) {
    throw new PresetRuleError('region', `is not a ${preset.label} region (e.g. ${rule.examples.join(', ')})`);
  }
  const template = input.endpoint?.trim() || preset.endpointTemplate;
  if (!template) throw new PresetRuleError('endpoint', `is needed for ${preset.label}`);
  let endpoint = template.replaceAll('{region}', region);
  if (endpoint.includes('{accountId}')) {
    const account = input.accountId?.trim();
    if (!account) throw new PresetRuleError('accountId', `is needed for ${preset.label}`);
    if (!ACCOUNT_ID.test(account)) throw new PresetRuleError('accountId', 'may hold letters, digits and dashes only');
    endpoint = endpoint.replaceAll('{accountId}', account);
  }
  endpoint = endpoint.replace(/\/+$/, '');
  if (/[{}]/.test(endpoint)) throw new PresetRuleError('endpoint', 'may use {region} and {accountId} only');
  return {
    provider: preset.id,
    endpoint,
    region,
    forcePathStyle: input.forcePathStyle ?? preset.forcePathStyle,
    checksums: input.checksums ?? preset.checksums,
  };
}

/** The region requests to this storage are signed with (Spaces: us-east-1 whatever the datacenter). */
export function signingRegion(provider: string, region: string): string {
  return presetFor(provider)?.region.signingRegion ?? region;
}
