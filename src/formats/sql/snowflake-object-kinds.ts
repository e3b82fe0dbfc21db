// The tables behind snowflake-objects.ts: which Snowflake objects it reads and, per object, the
// property names (and the shape of each value) its CREATE / ALTER … SET / UNSET accept, as the
// SQL command reference at docs.snowflake.com lists them. A name not in a table is rejected.

/** The shape a property's value must have. Scalars also take a session variable ($name). */
export type Shape =
  | { t: 'bool' }
  | { t: 'int'; or?: readonly string[] }
  | { t: 'str'; or?: readonly string[] }
  | { t: 'enum'; of: readonly string[] }
  | { t: 'name'; str?: boolean }
  | { t: 'any' }
  | { t: 'strs' }
  | { t: 'names' }
  | { t: 'list' }
  | { t: 'value' }
  | { t: 'opts'; props: PropTable; what: string }
  | { t: 'fileFormat' };

export type PropTable = Readonly<Record<string, Shape>>;

const BOOL: Shape = { t: 'bool' };
const INT: Shape = { t: 'int' };
const STR: Shape = { t: 'str' };
const NAME: Shape = { t: 'name' };
/** An object named by identifier or by string ('<string>' in the docs, written either way). */
const NAME_OR_STR: Shape = { t: 'name', str: true };
const ANY: Shape = { t: 'any' };
/** `( '<string>' [ , … ] )` */
const STRS: Shape = { t: 'strs' };
/** `( <name> [ , … ] )` */
const NAMES: Shape = { t: 'names' };
/** `<name> [ , <name> … ]` without parentheses. */
const LIST: Shape = { t: 'list' };
/** A scalar or a parenthesised list of scalars (parameters whose type the tables do not model). */
const VALUE: Shape = { t: 'value' };
const enumOf = (...of: string[]): Shape => ({ t: 'enum', of });
const strOr = (...or: string[]): Shape => ({ t: 'str', or });
const opts = (what: string, props: PropTable): Shape => ({ t: 'opts', props, what });
const names = (shape: Shape, ...list: string[]): PropTable => Object.fromEntries(list.map((n) => [n, shape]));

// ---- File formats (CREATE / ALTER FILE FORMAT formatTypeOptions, per TYPE) ----

const COMPRESSION = enumOf('AUTO', 'GZIP', 'BZ2', 'BROTLI', 'ZSTD', 'DEFLATE', 'RAW_DEFLATE', 'NONE');
const DATE_TIME = names(strOr('AUTO'), 'DATE_FORMAT', 'TIME_FORMAT', 'TIMESTAMP_FORMAT');
const BINARY_FORMAT = enumOf('HEX', 'BASE64', 'UTF8');

export const FORMAT_TYPES = ['CSV', 'JSON', 'AVRO', 'ORC', 'PARQUET', 'XML', 'CUSTOM'] as const;

export const FORMAT_OPTIONS: Readonly<Record<string, PropTable>> = {
  CSV: {
    COMPRESSION,
    RECORD_DELIMITER: strOr('NONE'),
    FIELD_DELIMITER: strOr('NONE'),
    MULTI_LINE: BOOL,
    FILE_EXTENSION: STR,
    PARSE_HEADER: BOOL,
    SKIP_HEADER: INT,
    SKIP_BLANK_LINES: BOOL,
    ...DATE_TIME,
    BINARY_FORMAT,
    ESCAPE: strOr('NONE'),
    ESCAPE_UNENCLOSED_FIELD: strOr('NONE'),
    TRIM_SPACE: BOOL,
    FIELD_OPTIONALLY_ENCLOSED_BY: strOr('NONE'),
    NULL_IF: STRS,
    ERROR_ON_COLUMN_COUNT_MISMATCH: BOOL,
    REPLACE_INVALID_CHARACTERS: BOOL,
    EMPTY_FIELD_AS_NULL: BOOL,
    SKIP_BYTE_ORDER_MARK: BOOL,
    ENCODING: strOr('UTF8'),
  },
  JSON: {
    COMPRESSION,
    ...DATE_TIME,
    BINARY_FORMAT,
    TRIM_SPACE: BOOL,
    MULTI_LINE: BOOL,
    NULL_IF: STRS,
    FILE_EXTENSION: STR,
    ENABLE_OCTAL: BOOL,
    ALLOW_DUPLICATE: BOOL,
    STRIP_OUTER_ARRAY: BOOL,
    STRIP_NULL_VALUES: BOOL,
    REPLACE_INVALID_CHARACTERS: BOOL,
    IGNORE_UTF8_ERRORS: BOOL,
    SKIP_BYTE_ORDER_MARK: BOOL,
  },
  AVRO: { COMPRESSION, TRIM_SPACE: BOOL, REPLACE_INVALID_CHARACTERS: BOOL, NULL_IF: STRS },
  ORC: { TRIM_SPACE: BOOL, REPLACE_INVALID_CHARACTERS: BOOL, NULL_IF: STRS },
  PARQUET: {
    COMPRESSION: enumOf('AUTO', 'LZO', 'SNAPPY', 'NONE'),
    SNAPPY_COMPRESSION: BOOL,
    BINARY_AS_TEXT: BOOL,
    USE_LOGICAL_TYPE: BOOL,
    TRIM_SPACE: BOOL,
    USE_VECTORIZED_SCANNER: BOOL,
    REPLACE_INVALID_CHARACTERS: BOOL,
    NULL_IF: STRS,
  },
  XML: {
    COMPRESSION,
    IGNORE_UTF8_ERRORS: BOOL,
    PRESERVE_SPACE: BOOL,
    STRIP_OUTER_ELEMENT: BOOL,
    DISABLE_SNOWFLAKE_DATA: BOOL,
    DISABLE_AUTO_CONVERT: BOOL,
    REPLACE_INVALID_CHARACTERS: BOOL,
    SKIP_BYTE_ORDER_MARK: BOOL,
  },
  CUSTOM: {},
};

/** Every type's options (ALTER FILE FORMAT … SET does not restate the type); COMPRESSION takes every type's words. */
export const ANY_FORMAT_OPTION: PropTable = {
  ...Object.assign({}, ...Object.values(FORMAT_OPTIONS)),
  COMPRESSION: enumOf('AUTO', 'GZIP', 'BZ2', 'BROTLI', 'ZSTD', 'DEFLATE', 'RAW_DEFLATE', 'LZO', 'SNAPPY', 'NONE'),
};

// ---- Stages ----

const STAGE_PROPS: PropTable = {
  URL: STR,
  STORAGE_INTEGRATION: NAME,
  CREDENTIALS: opts('CREDENTIALS', names(STR, 'AWS_KEY_ID', 'AWS_SECRET_KEY', 'AWS_TOKEN', 'AWS_ROLE', 'AZURE_SAS_TOKEN')),
  ENCRYPTION: opts('ENCRYPTION', {
    TYPE: enumOf('AWS_CSE', 'AWS_SSE_S3', 'AWS_SSE_KMS', 'GCS_SSE_KMS', 'AZURE_CSE', 'SNOWFLAKE_FULL', 'SNOWFLAKE_SSE', 'NONE'),
    MASTER_KEY: STR,
    KMS_KEY_ID: STR,
  }),
  DIRECTORY: opts('DIRECTORY', { ENABLE: BOOL, REFRESH_ON_CREATE: BOOL, AUTO_REFRESH: BOOL, NOTIFICATION_INTEGRATION: NAME_OR_STR }),
  FILE_FORMAT: { t: 'fileFormat' },
  COPY_OPTIONS: opts('COPY_OPTIONS', {
    ON_ERROR: ANY,
    SIZE_LIMIT: INT,
    PURGE: BOOL,
    RETURN_FAILED_ONLY: BOOL,
    MATCH_BY_COLUMN_NAME: enumOf('CASE_SENSITIVE', 'CASE_INSENSITIVE', 'NONE'),
    ENFORCE_LENGTH: BOOL,
    TRUNCATECOLUMNS: BOOL,
    FORCE: BOOL,
    LOAD_UNCERTAIN_FILES: BOOL,
  }),
  AWS_ACCESS_POINT_ARN: STR,
  USE_PRIVATELINK_ENDPOINT: BOOL,
  COMMENT: STR,
};

// ---- Warehouses ----

const SIZES = [
  'XSMALL',
  'X-SMALL',
  'SMALL',
  'MEDIUM',
  'LARGE',
  'XLARGE',
  'X-LARGE',
  'XXLARGE',
  'X2LARGE',
  '2X-LARGE',
  'XXXLARGE',
  'X3LARGE',
  '3X-LARGE',
].concat(['X4LARGE', '4X-LARGE', 'X5LARGE', '5X-LARGE', 'X6LARGE', '6X-LARGE']);

const WAREHOUSE_PROPS: PropTable = {
  WAREHOUSE_TYPE: enumOf('STANDARD', 'SNOWPARK-OPTIMIZED', 'ADAPTIVE'),
  WAREHOUSE_SIZE: enumOf(...SIZES),
  /** Quoted in the docs ('1' | '2'): a bare number is rejected. */
  GENERATION: enumOf('1', '2'),
  RESOURCE_CONSTRAINT: enumOf(
    ...['STANDARD_GEN_1', 'STANDARD_GEN_2', 'MEMORY_1X', 'MEMORY_1X_X86', 'MEMORY_16X', 'MEMORY_16X_X86', 'MEMORY_64X', 'MEMORY_64X_X86'],
  ),
  WAIT_FOR_COMPLETION: BOOL,
  MAX_CLUSTER_COUNT: INT,
  MIN_CLUSTER_COUNT: INT,
  SCALING_POLICY: enumOf('STANDARD', 'ECONOMY'),
  AUTO_SUSPEND: { t: 'int', or: ['NULL'] },
  AUTO_RESUME: BOOL,
  RESOURCE_MONITOR: NAME,
  COMMENT: STR,
  ENABLE_QUERY_ACCELERATION: BOOL,
  QUERY_ACCELERATION_MAX_SCALE_FACTOR: INT,
  // objectParams
  ...names(INT, 'MAX_CONCURRENCY_LEVEL', 'STATEMENT_QUEUED_TIMEOUT_IN_SECONDS', 'STATEMENT_TIMEOUT_IN_SECONDS'),
};

// ---- Session parameters ("sessionParams" in the docs; the Parameters page's session list) ----

export const SESSION_PARAMS: PropTable = names(
  ANY,
  ...['ABORT_DETACHED_QUERY', 'AUTOCOMMIT', 'BINARY_INPUT_FORMAT', 'BINARY_OUTPUT_FORMAT', 'CLIENT_MEMORY_LIMIT', 'CLIENT_METADATA_REQUEST_USE_CONNECTION_CTX'],
  ...['CLIENT_PREFETCH_THREADS', 'CLIENT_RESULT_CHUNK_SIZE', 'CLIENT_RESULT_COLUMN_CASE_INSENSITIVE', 'CLIENT_SESSION_KEEP_ALIVE'],
  ...['CLIENT_SESSION_KEEP_ALIVE_HEARTBEAT_FREQUENCY', 'CLIENT_TIMESTAMP_TYPE_MAPPING', 'DATE_INPUT_FORMAT', 'DATE_OUTPUT_FORMAT'],
  ...['ENABLE_UNLOAD_PHYSICAL_TYPE_OPTIMIZATION', 'ERROR_ON_NONDETERMINISTIC_MERGE', 'ERROR_ON_NONDETERMINISTIC_UPDATE', 'GEOGRAPHY_OUTPUT_FORMAT'],
  ...['GEOMETRY_OUTPUT_FORMAT', 'JDBC_TREAT_DECIMAL_AS_INT', 'JDBC_TREAT_TIMESTAMP_NTZ_AS_UTC', 'JDBC_USE_SESSION_TIMEZONE', 'JSON_INDENT'],
  ...['LOCK_TIMEOUT', 'LOG_LEVEL', 'MULTI_STATEMENT_COUNT', 'NOORDER_SEQUENCE_AS_DEFAULT', 'ODBC_TREAT_DECIMAL_AS_INT', 'QUERY_TAG'],
  ...['QUOTED_IDENTIFIERS_IGNORE_CASE', 'ROWS_PER_RESULTSET', 'S3_STAGE_VPCE_DNS_NAME', 'SEARCH_PATH', 'SIMULATED_DATA_SHARING_CONSUMER'],
  ...['STATEMENT_QUEUED_TIMEOUT_IN_SECONDS', 'STATEMENT_TIMEOUT_IN_SECONDS', 'STRICT_JSON_OUTPUT', 'TIMESTAMP_DAY_IS_ALWAYS_24H'],
  ...['TIMESTAMP_INPUT_FORMAT', 'TIMESTAMP_LTZ_OUTPUT_FORMAT', 'TIMESTAMP_NTZ_OUTPUT_FORMAT', 'TIMESTAMP_OUTPUT_FORMAT', 'TIMESTAMP_TYPE_MAPPING'],
  ...['TIMESTAMP_TZ_OUTPUT_FORMAT', 'TIMEZONE', 'TIME_INPUT_FORMAT', 'TIME_OUTPUT_FORMAT', 'TRACE_LEVEL', 'TRANSACTION_ABORT_ON_ERROR'],
  ...['TRANSACTION_DEFAULT_ISOLATION_LEVEL', 'TWO_DIGIT_CENTURY_START', 'UNSUPPORTED_DDL_ACTION', 'USE_CACHED_RESULT', 'WEEK_OF_YEAR_POLICY', 'WEEK_START'],
);

const ACCOUNT_PARAMS: PropTable = {
  ...SESSION_PARAMS,
  ...names(VALUE, 'ALLOW_CLIENT_MFA_CACHING', 'ALLOW_ID_TOKEN', 'CLIENT_ENCRYPTION_KEY_SIZE', 'CORTEX_ENABLED_CROSS_REGION', 'ENABLE_IDENTIFIER_FIRST_LOGIN'),
  ...names(VALUE, 'ENABLE_INTERNAL_STAGES_PRIVATELINK', 'ENFORCE_NETWORK_RULES_FOR_INTERNAL_STAGES', 'EVENT_TABLE', 'INITIAL_REPLICATION_SIZE_LIMIT_IN_TB'),
  ...names(VALUE, 'EXTERNAL_OAUTH_ADD_PRIVILEGED_ROLES_TO_BLOCKED_LIST', 'MIN_DATA_RETENTION_TIME_IN_DAYS', 'NETWORK_POLICY', 'PERIODIC_DATA_REKEYING'),
  ...names(VALUE, 'OAUTH_ADD_PRIVILEGED_ROLES_TO_BLOCKED_LIST', 'PREVENT_UNLOAD_TO_INLINE_URL', 'PREVENT_UNLOAD_TO_INTERNAL_STAGES'),
  ...names(
    VALUE,
    'REQUIRE_STORAGE_INTEGRATION_FOR_STAGE_CREATION',
    'REQUIRE_STORAGE_INTEGRATION_FOR_STAGE_OPERATION',
    'SAML_IDENTITY_PROVIDER',
    'SSO_LOGIN_PAGE',
  ),
  // objectParams set at the account level
  ...names(VALUE, 'DATA_RETENTION_TIME_IN_DAYS', 'DEFAULT_DDL_COLLATION', 'ENABLE_UNREDACTED_QUERY_SYNTAX_ERROR', 'MAX_CONCURRENCY_LEVEL'),
  ...names(VALUE, 'MAX_DATA_EXTENSION_TIME_IN_DAYS', 'PIPE_EXECUTION_PAUSED', 'SUSPEND_TASK_AFTER_NUM_FAILURES', 'USER_TASK_TIMEOUT_MS'),
  ...names(VALUE, 'USER_TASK_MANAGED_INITIAL_WAREHOUSE_SIZE', 'STORAGE_SERIALIZATION_POLICY'),
  RESOURCE_MONITOR: NAME,
};

// ---- Tasks, pipes, dynamic tables ----

const TASK_PROPS: PropTable = {
  WAREHOUSE: NAME_OR_STR,
  USER_TASK_MANAGED_INITIAL_WAREHOUSE_SIZE: enumOf(...SIZES),
  SCHEDULE: STR,
  CONFIG: STR,
  ALLOW_OVERLAPPING_EXECUTION: BOOL,
  OVERLAP_POLICY: enumOf('NO_OVERLAP', 'ALLOW_CHILD_OVERLAP', 'ALLOW_ALL_OVERLAP'),
  ...names(INT, 'USER_TASK_TIMEOUT_MS', 'SUSPEND_TASK_AFTER_NUM_FAILURES', 'TASK_AUTO_RETRY_ATTEMPTS', 'USER_TASK_MINIMUM_TRIGGER_INTERVAL_IN_SECONDS'),
  ERROR_INTEGRATION: NAME,
  SUCCESS_INTEGRATION: NAME,
  LOG_LEVEL: STR,
  COMMENT: STR,
  FINALIZE: NAME_OR_STR,
  ...names(STR, 'TARGET_COMPLETION_INTERVAL', 'SERVERLESS_TASK_MIN_STATEMENT_SIZE', 'SERVERLESS_TASK_MAX_STATEMENT_SIZE'),
  ...SESSION_PARAMS,
};

export const PIPE_CREATE: PropTable = { AUTO_INGEST: BOOL, ERROR_INTEGRATION: NAME, AWS_SNS_TOPIC: STR, INTEGRATION: STR, COMMENT: STR };
/** CREATE OR ALTER PIPE also takes PIPE_EXECUTION_PAUSED. */
export const PIPE_CREATE_OR_ALTER: PropTable = { ...PIPE_CREATE, PIPE_EXECUTION_PAUSED: BOOL };
const PIPE_ALTER: PropTable = { PIPE_EXECUTION_PAUSED: BOOL, ERROR_INTEGRATION: NAME, COMMENT: STR };

const DT_COMMON: PropTable = {
  TARGET_LAG: strOr('DOWNSTREAM'),
  WAREHOUSE: NAME,
  DATA_RETENTION_TIME_IN_DAYS: INT,
  MAX_DATA_EXTENSION_TIME_IN_DAYS: INT,
  COMMENT: STR,
};
const REFRESH_MODE = enumOf('AUTO', 'FULL', 'INCREMENTAL', 'ADAPTIVE', 'CUSTOM_INCREMENTAL');
const INITIALIZE = enumOf('ON_CREATE', 'ON_SCHEDULE');
export const DT_CREATE: PropTable = {
  ...DT_COMMON,
  SCHEDULER: enumOf('DISABLE', 'ENABLE'),
  INITIALIZATION_WAREHOUSE: NAME,
  REFRESH_MODE,
  INITIALIZE,
  ROW_TIMESTAMP: BOOL,
};
/** CREATE DYNAMIC ICEBERG TABLE: the Iceberg storage properties, without SCHEDULER, INITIALIZATION_WAREHOUSE, ROW_TIMESTAMP. */
export const DT_ICEBERG_CREATE: PropTable = {
  ...DT_COMMON,
  ...names(STR, 'EXTERNAL_VOLUME', 'BASE_LOCATION'),
  CATALOG: enumOf('SNOWFLAKE'),
  TARGET_FILE_SIZE: enumOf('AUTO', '16MB', '32MB', '64MB', '128MB'),
  PATH_LAYOUT: enumOf('FLAT', 'HIERARCHICAL'),
  ICEBERG_VERSION: INT,
  REFRESH_MODE,
  INITIALIZE,
};

// ---- Streams (CREATE STREAM … ON <source>: what each source takes) ----

export interface StreamSource {
  /** The source's words after ON. */
  words: readonly string[];
  /** Its name counts among the statement's tables. */
  table: boolean;
  /** AT | BEFORE ( … ) is documented. */
  timeTravel: boolean;
  props: PropTable;
}
export const STREAM_SOURCES: readonly StreamSource[] = [
  { words: ['TABLE'], table: true, timeTravel: true, props: { APPEND_ONLY: BOOL, SHOW_INITIAL_ROWS: BOOL, COMMENT: STR } },
  { words: ['EXTERNAL', 'TABLE'], table: true, timeTravel: true, props: { INSERT_ONLY: BOOL, COMMENT: STR } },
  { words: ['EVENT', 'TABLE'], table: true, timeTravel: false, props: { COMMENT: STR } },
  { words: ['DYNAMIC', 'TABLE'], table: true, timeTravel: false, props: { COMMENT: STR } },
  { words: ['VIEW'], table: true, timeTravel: true, props: { APPEND_ONLY: BOOL, SHOW_INITIAL_ROWS: BOOL, COMMENT: STR } },
  { words: ['STAGE'], table: false, timeTravel: false, props: { COMMENT: STR } },
  // ON DIRECTORY ( @stage ): the directory table of a stage.
  { words: ['DIRECTORY'], table: false, timeTravel: false, props: { COMMENT: STR } },
];

// ---- Policies ----

export const MASKING_POLICY_CREATE: PropTable = { COMMENT: STR, EXEMPT_OTHER_POLICIES: BOOL };
export const ROW_ACCESS_POLICY_CREATE: PropTable = { COMMENT: STR };
const DT_ALTER: PropTable = { ...DT_COMMON, DEFAULT_DDL_COLLATION: STR };

// ---- Integrations ----

const API_INTEGRATION: PropTable = {
  ...names(STR, 'API_AWS_ROLE_ARN', 'AZURE_AD_APPLICATION_ID', 'API_KEY', 'COMMENT'),
  ENABLED: BOOL,
  ...names(STRS, 'API_ALLOWED_PREFIXES', 'API_BLOCKED_PREFIXES'),
};
const NOTIFICATION_INTEGRATION: PropTable = {
  ENABLED: BOOL,
  ...names(STR, 'COMMENT', 'AWS_SNS_TOPIC_ARN', 'AWS_SNS_ROLE_ARN', 'GCP_PUBSUB_SUBSCRIPTION_NAME', 'GCP_PUBSUB_TOPIC_NAME'),
  ...names(
    STR,
    'AZURE_STORAGE_QUEUE_PRIMARY_URI',
    'AZURE_TENANT_ID',
    'AZURE_EVENT_GRID_TOPIC_ENDPOINT',
    'DEFAULT_SUBJECT',
    'WEBHOOK_URL',
    'WEBHOOK_BODY_TEMPLATE',
  ),
  ...names(STRS, 'ALLOWED_RECIPIENTS', 'DEFAULT_RECIPIENTS'),
  WEBHOOK_SECRET: NAME,
};
const STORAGE_INTEGRATION: PropTable = {
  ...names(STR, 'STORAGE_AWS_ROLE_ARN', 'STORAGE_AWS_OBJECT_ACL', 'STORAGE_AWS_EXTERNAL_ID', 'AZURE_TENANT_ID', 'COMMENT'),
  ...names(BOOL, 'USE_PRIVATELINK_ENDPOINT', 'ENABLED'),
  ...names(STRS, 'STORAGE_ALLOWED_LOCATIONS', 'STORAGE_BLOCKED_LOCATIONS'),
};
/** CREATE STORAGE INTEGRATION: the common properties and, per STORAGE_PROVIDER, its cloudProviderParams. */
export const STORAGE_INTEGRATION_CREATE: PropTable = {
  TYPE: enumOf('EXTERNAL_STAGE', 'POSTGRES_EXTERNAL_STORAGE', 'POSTGRES_INTERNAL_STORAGE'),
  STORAGE_PROVIDER: enumOf('S3', 'S3CHINA', 'S3GOV', 'GCS', 'AZURE'),
  ENABLED: BOOL,
  ...names(STRS, 'STORAGE_ALLOWED_LOCATIONS', 'STORAGE_BLOCKED_LOCATIONS'),
  COMMENT: STR,
  ...names(STR, 'STORAGE_AWS_ROLE_ARN', 'STORAGE_AWS_EXTERNAL_ID', 'STORAGE_AWS_OBJECT_ACL', 'AZURE_TENANT_ID'),
  USE_PRIVATELINK_ENDPOINT: BOOL,
};
const S3_PARAMS = ['STORAGE_AWS_ROLE_ARN', 'STORAGE_AWS_EXTERNAL_ID', 'STORAGE_AWS_OBJECT_ACL', 'USE_PRIVATELINK_ENDPOINT'];
/** Which cloudProviderParams each STORAGE_PROVIDER documents; the first listed are required. */
export const STORAGE_PROVIDERS: Readonly<Record<string, { params: readonly string[]; required: readonly string[] }>> = {
  S3: { params: S3_PARAMS, required: ['STORAGE_AWS_ROLE_ARN'] },
  S3CHINA: { params: S3_PARAMS, required: ['STORAGE_AWS_ROLE_ARN'] },
  S3GOV: { params: S3_PARAMS, required: ['STORAGE_AWS_ROLE_ARN'] },
  GCS: { params: [], required: [] },
  AZURE: { params: ['AZURE_TENANT_ID', 'USE_PRIVATELINK_ENDPOINT'], required: ['AZURE_TENANT_ID'] },
};

/** SAML2, SCIM, Snowflake OAuth, External OAuth and API authentication integrations. */
const SECURITY_INTEGRATION: PropTable = {
  ENABLED: BOOL,
  COMMENT: STR,
  ...names(VALUE, 'EXTERNAL_OAUTH_TYPE', 'EXTERNAL_OAUTH_ISSUER', 'EXTERNAL_OAUTH_TOKEN_USER_MAPPING_CLAIM', 'EXTERNAL_OAUTH_SNOWFLAKE_USER_MAPPING_ATTRIBUTE'),
  ...names(VALUE, 'EXTERNAL_OAUTH_JWS_KEYS_URL', 'EXTERNAL_OAUTH_RSA_PUBLIC_KEY', 'EXTERNAL_OAUTH_RSA_PUBLIC_KEY_2', 'EXTERNAL_OAUTH_BLOCKED_ROLES_LIST'),
  ...names(VALUE, 'EXTERNAL_OAUTH_ALLOWED_ROLES_LIST', 'EXTERNAL_OAUTH_AUDIENCE_LIST', 'EXTERNAL_OAUTH_ANY_ROLE_MODE', 'EXTERNAL_OAUTH_SCOPE_DELIMITER'),
  ...names(VALUE, 'EXTERNAL_OAUTH_SCOPE_MAPPING_ATTRIBUTE', 'OAUTH_REDIRECT_URI', 'OAUTH_ALLOW_NON_TLS_REDIRECT_URI', 'OAUTH_ENFORCE_PKCE'),
  ...names(VALUE, 'OAUTH_USE_SECONDARY_ROLES', 'PRE_AUTHORIZED_ROLES_LIST', 'BLOCKED_ROLES_LIST', 'OAUTH_ISSUE_REFRESH_TOKENS', 'OAUTH_REFRESH_TOKEN_VALIDITY'),
  ...names(VALUE, 'NETWORK_POLICY', 'OAUTH_CLIENT_RSA_PUBLIC_KEY', 'OAUTH_CLIENT_RSA_PUBLIC_KEY_2', 'SAML2_ISSUER', 'SAML2_SSO_URL', 'SAML2_PROVIDER'),
  ...names(VALUE, 'SAML2_X509_CERT', 'ALLOWED_USER_DOMAINS', 'ALLOWED_EMAIL_PATTERNS', 'SAML2_SP_INITIATED_LOGIN_PAGE_LABEL', 'SAML2_ENABLE_SP_INITIATED'),
  ...names(VALUE, 'SAML2_SNOWFLAKE_X509_CERT', 'SAML2_SIGN_REQUEST', 'SAML2_REQUESTED_NAMEID_FORMAT', 'SAML2_POST_LOGOUT_REDIRECT_URL', 'SAML2_FORCE_AUTHN'),
  ...names(VALUE, 'SAML2_SNOWFLAKE_ISSUER_URL', 'SAML2_SNOWFLAKE_ACS_URL', 'SYNC_PASSWORD', 'OAUTH_TOKEN_ENDPOINT', 'OAUTH_CLIENT_AUTH_METHOD'),
  ...names(
    VALUE,
    'OAUTH_CLIENT_ID',
    'OAUTH_CLIENT_SECRET',
    'OAUTH_GRANT',
    'OAUTH_ACCESS_TOKEN_VALIDITY',
    'OAUTH_ALLOWED_SCOPES',
    'OAUTH_AUTHORIZATION_ENDPOINT',
  ),
};

// ---- Object kinds ----

/** How ALTER <kind> reads: the generic actions it takes and the kind-specific forms (named, read in snowflake-objects.ts). */
export interface AlterSpec {
  /** Whether `IF EXISTS` is documented (default true). */
  ifExists?: boolean;
  /** Bare action keyword sequences; `[…]` marks an optional tail (`RESUME [IF SUSPENDED]`). */
  verbs?: readonly string[];
  /** Verbs that may be written without the object's name (the session's current object). */
  nameOptionalFor?: readonly string[];
  rename?: boolean;
  swap?: boolean;
  /** SET TAG t = 'v', … and UNSET TAG t, … */
  tags?: boolean;
  /** SET properties; `setFlags` are bare keywords SET also takes (SET SECURE). */
  set?: PropTable;
  setFlags?: readonly string[];
  /** Whether SET takes one property only (ALTER VIEW: "set each property individually"). */
  setOne?: boolean;
  /** UNSET names (comma-separated). */
  unset?: readonly string[];
  /** Kind-specific action forms. */
  forms?: readonly string[];
}

export interface ObjectKind {
  /** 'FILE FORMAT' */
  name: string;
  /** Keyword sequence naming it. */
  words: readonly string[];
  /** A table-like object: its name counts among the statement's tables. */
  table?: boolean;
  /** The name is followed by `( <arg types> )` (procedures). */
  args?: boolean;
  alter?: AlterSpec;
  /** DROP options after the name (CASCADE | RESTRICT, FORCE); present when DROP is read. */
  drop?: readonly string[];
  describe?: boolean;
}

const props = (t: PropTable): string[] => Object.keys(t);

export const KINDS: readonly ObjectKind[] = [
  {
    name: 'ACCOUNT',
    words: ['ACCOUNT'],
    alter: {
      ifExists: false,
      verbs: ['DROP OLD URL'],
      rename: true,
      tags: true,
      set: ACCOUNT_PARAMS,
      unset: props(ACCOUNT_PARAMS),
      forms: ['accountPolicy'],
    },
  },
  ...(
    [
      ['API', API_INTEGRATION, ['API_KEY', 'ENABLED', 'API_BLOCKED_PREFIXES', 'COMMENT']],
      [
        'NOTIFICATION',
        NOTIFICATION_INTEGRATION,
        ['ENABLED', 'COMMENT', 'ALLOWED_RECIPIENTS', 'DEFAULT_RECIPIENTS', 'DEFAULT_SUBJECT', 'WEBHOOK_SECRET', 'WEBHOOK_BODY_TEMPLATE'],
      ],
      ['SECURITY', SECURITY_INTEGRATION, props(SECURITY_INTEGRATION)],
      ['STORAGE', STORAGE_INTEGRATION, ['ENABLED', 'STORAGE_BLOCKED_LOCATIONS', 'COMMENT']],
    ] as const
  ).map(([type, table, unset]): ObjectKind => ({
    name: `${type} INTEGRATION`,
    words: [type, 'INTEGRATION'],
    alter: { tags: true, set: table, unset },
    drop: [],
    describe: true,
  })),
  {
    name: 'INTEGRATION',
    words: ['INTEGRATION'],
    // ALTER INTEGRATION without its type: any integration's properties.
    alter: {
      tags: true,
      set: { ...SECURITY_INTEGRATION, ...API_INTEGRATION, ...NOTIFICATION_INTEGRATION, ...STORAGE_INTEGRATION },
      unset: [
        ...new Set(
          props(SECURITY_INTEGRATION).concat(
            'API_KEY',
            'ALLOWED_RECIPIENTS',
            'DEFAULT_RECIPIENTS',
            'DEFAULT_SUBJECT',
            'WEBHOOK_SECRET',
            'WEBHOOK_BODY_TEMPLATE',
            'API_BLOCKED_PREFIXES',
            'STORAGE_BLOCKED_LOCATIONS',
          ),
        ),
      ],
    },
    drop: [],
    describe: true,
  },
  {
    name: 'CONNECTION',
    words: ['CONNECTION'],
    alter: { verbs: ['PRIMARY'], set: { COMMENT: STR }, unset: ['COMMENT'], forms: ['accounts'] },
    drop: [],
  },
  {
    name: 'DATABASE',
    words: ['DATABASE'],
    alter: (() => {
      const set: PropTable = {
        ...names(INT, 'DATA_RETENTION_TIME_IN_DAYS', 'MAX_DATA_EXTENSION_TIME_IN_DAYS'),
        ...names(NAME, 'EXTERNAL_VOLUME', 'CATALOG'),
        REPLACE_INVALID_CHARACTERS: BOOL,
        ...names(STR, 'DEFAULT_DDL_COLLATION', 'LOG_LEVEL', 'TRACE_LEVEL', 'COMMENT'),
        STORAGE_SERIALIZATION_POLICY: enumOf('COMPATIBLE', 'OPTIMIZED'),
      };
      const unset = [
        'DATA_RETENTION_TIME_IN_DAYS',
        'MAX_DATA_EXTENSION_TIME_IN_DAYS',
        'EXTERNAL_VOLUME',
        'CATALOG',
        'DEFAULT_DDL_COLLATION',
        'STORAGE_SERIALIZATION_POLICY',
        'COMMENT',
      ];
      return { verbs: ['REFRESH', 'PRIMARY'], rename: true, swap: true, tags: true, set, unset, forms: ['accounts'] };
    })(),
    drop: ['CASCADE', 'RESTRICT'],
    describe: true,
  },
  {
    name: 'DATABASE ROLE',
    words: ['DATABASE', 'ROLE'],
    alter: { rename: true, tags: true, set: { COMMENT: STR }, unset: ['COMMENT'] },
    drop: [],
  },
  ...['FAILOVER', 'REPLICATION'].map((type): ObjectKind => ({
    name: `${type} GROUP`,
    words: [type, 'GROUP'],
    alter: {
      verbs: ['REFRESH', 'PRIMARY', 'SUSPEND [IMMEDIATE]', 'RESUME'],
      rename: true,
      set: {
        ...names(LIST, 'OBJECT_TYPES', 'ALLOWED_DATABASES', 'ALLOWED_SHARES', 'ALLOWED_EXTERNAL_VOLUMES', 'ALLOWED_INTEGRATION_TYPES'),
        REPLICATION_SCHEDULE: STR,
        COMMENT: STR,
      },
      forms: ['groupMembers'],
    },
    drop: [],
  })),
  {
    name: 'FILE FORMAT',
    words: ['FILE', 'FORMAT'],
    alter: { rename: true, set: { ...ANY_FORMAT_OPTION, COMMENT: STR } },
    drop: [],
    describe: true,
  },
  ...['MASKING', 'ROW ACCESS'].map((type): ObjectKind => ({
    name: `${type} POLICY`,
    words: [...type.split(' '), 'POLICY'],
    alter: { rename: true, tags: true, set: { COMMENT: STR }, unset: ['COMMENT'], forms: ['policyBody'] },
    drop: [],
    describe: true,
  })),
  {
    name: 'MATERIALIZED VIEW',
    words: ['MATERIALIZED', 'VIEW'],
    table: true,
    alter: {
      ifExists: false,
      verbs: ['DROP CLUSTERING KEY', 'SUSPEND RECLUSTER', 'RESUME RECLUSTER', 'SUSPEND', 'RESUME'],
      rename: true,
      set: { COMMENT: STR },
      setFlags: ['SECURE'],
      unset: ['SECURE', 'COMMENT'],
      forms: ['clusterBy'],
    },
    drop: [],
    describe: true,
  },
  {
    name: 'NETWORK POLICY',
    words: ['NETWORK', 'POLICY'],
    alter: {
      rename: true,
      tags: true,
      set: { ...names(STRS, 'ALLOWED_NETWORK_RULE_LIST', 'BLOCKED_NETWORK_RULE_LIST', 'ALLOWED_IP_LIST', 'BLOCKED_IP_LIST'), COMMENT: STR },
      unset: ['COMMENT'],
      forms: ['networkRules'],
    },
    drop: [],
    describe: true,
  },
  {
    name: 'PIPE',
    words: ['PIPE'],
    alter: { tags: true, set: PIPE_ALTER, unset: props(PIPE_ALTER), forms: ['pipeRefresh'] },
    drop: [],
    describe: true,
  },
  {
    name: 'PROCEDURE',
    words: ['PROCEDURE'],
    args: true,
    alter: {
      rename: true,
      tags: true,
      set: names(STR, 'COMMENT', 'LOG_LEVEL', 'TRACE_LEVEL'),
      unset: ['COMMENT', 'LOG_LEVEL', 'TRACE_LEVEL'],
      forms: ['executeAs'],
    },
    drop: [],
    describe: true,
  },
  {
    name: 'RESOURCE MONITOR',
    words: ['RESOURCE', 'MONITOR'],
    alter: { forms: ['monitor'] },
    drop: [],
  },
  { name: 'ROLE', words: ['ROLE'], alter: { rename: true, tags: true, set: { COMMENT: STR }, unset: ['COMMENT'] }, drop: [] },
  {
    name: 'SEQUENCE',
    words: ['SEQUENCE'],
    alter: { rename: true, set: { COMMENT: STR }, setFlags: ['ORDER', 'NOORDER'], unset: ['COMMENT'], forms: ['increment'] },
    drop: ['CASCADE', 'RESTRICT'],
    describe: true,
  },
  {
    name: 'SHARE',
    words: ['SHARE'],
    alter: { tags: true, set: { ACCOUNTS: LIST, COMMENT: STR }, unset: ['COMMENT'], forms: ['shareAccounts'] },
    drop: [],
    describe: true,
  },
  {
    name: 'STAGE',
    words: ['STAGE'],
    alter: { rename: true, tags: true, set: STAGE_PROPS, forms: ['stageRefresh'] },
    drop: [],
    describe: true,
  },
  {
    name: 'STREAM',
    words: ['STREAM'],
    alter: { tags: true, set: { APPEND_ONLY: BOOL, INSERT_ONLY: BOOL, COMMENT: STR }, unset: ['COMMENT'] },
    drop: [],
    describe: true,
  },
  {
    name: 'TAG',
    words: ['TAG'],
    alter: { rename: true, set: { COMMENT: STR }, unset: ['COMMENT', 'ALLOWED_VALUES'], forms: ['tagValues'] },
    drop: [],
  },
  {
    name: 'TASK',
    words: ['TASK'],
    alter: { verbs: ['RESUME', 'SUSPEND', 'REMOVE WHEN'], tags: true, set: TASK_PROPS, unset: props(TASK_PROPS), forms: ['taskGraph'] },
    drop: [],
    describe: true,
  },
  {
    name: 'VIEW',
    words: ['VIEW'],
    table: true,
    alter: { rename: true, tags: true, set: { COMMENT: STR }, setFlags: ['SECURE'], setOne: true, unset: ['SECURE', 'COMMENT'] },
    drop: [],
    describe: true,
  },
  {
    name: 'WAREHOUSE',
    words: ['WAREHOUSE'],
    alter: {
      verbs: ['SUSPEND', 'RESUME [IF SUSPENDED]', 'ABORT ALL QUERIES', 'ENABLE', 'DISABLE', 'UNSET DCM PROJECT'],
      nameOptionalFor: ['SUSPEND', 'RESUME', 'ABORT'],
      rename: true,
      tags: true,
      set: WAREHOUSE_PROPS,
      unset: props(WAREHOUSE_PROPS),
      forms: ['warehouseTables'],
    },
    drop: [],
    describe: true,
  },
  {
    name: 'DYNAMIC TABLE',
    words: ['DYNAMIC', 'TABLE'],
    table: true,
    alter: {
      verbs: ['SUSPEND RECLUSTER', 'RESUME RECLUSTER', 'SUSPEND', 'RESUME', 'REFRESH [COPY SESSION]', 'DROP CLUSTERING KEY', 'DROP ALL ROW ACCESS POLICIES'],
      rename: true,
      swap: true,
      tags: true,
      set: DT_ALTER,
      unset: ['DATA_RETENTION_TIME_IN_DAYS', 'MAX_DATA_EXTENSION_TIME_IN_DAYS', 'DEFAULT_DDL_COLLATION', 'COMMENT'],
      forms: ['clusterBy', 'rowAccess'],
    },
    drop: [],
    describe: true,
  },
  // Created only (ALTER / DROP / DESCRIBE DYNAMIC TABLE name it).
  { name: 'DYNAMIC ICEBERG TABLE', words: ['DYNAMIC', 'ICEBERG', 'TABLE'], table: true },
  {
    name: 'IMAGE REPOSITORY',
    words: ['IMAGE', 'REPOSITORY'],
    alter: { tags: true, set: { COMMENT: STR }, unset: ['COMMENT'] },
    drop: [],
  },
  {
    name: 'SERVICE',
    words: ['SERVICE'],
    alter: (() => {
      const set: PropTable = {
        ...names(INT, 'MIN_INSTANCES', 'MAX_INSTANCES', 'MIN_READY_INSTANCES'),
        QUERY_WAREHOUSE: NAME,
        AUTO_RESUME: BOOL,
        EXTERNAL_ACCESS_INTEGRATIONS: NAMES,
        COMMENT: STR,
      };
      return { verbs: ['SUSPEND', 'RESUME'], tags: true, set, unset: props(set), forms: ['serviceSpec'] };
    })(),
    drop: ['FORCE'],
    describe: true,
  },
  { name: 'SCHEMA', words: ['SCHEMA'], drop: ['CASCADE', 'RESTRICT'], describe: true },
];

/** CREATE property tables of the objects CREATE reads. */
export const CREATE_PROPS = { STAGE: STAGE_PROPS, WAREHOUSE: { ...WAREHOUSE_PROPS, INITIALLY_SUSPENDED: BOOL }, TASK: TASK_PROPS } as const;

/** The kinds CREATE reads, and those with a documented CREATE OR ALTER variant. */
export const CREATED_KINDS = [
  'FILE FORMAT',
  'STAGE',
  'PIPE',
  'TASK',
  'WAREHOUSE',
  'DYNAMIC TABLE',
  'DYNAMIC ICEBERG TABLE',
  'STREAM',
  'MASKING POLICY',
  'ROW ACCESS POLICY',
  'STORAGE INTEGRATION',
  'DATABASE ROLE',
] as const;
export const OR_ALTER_KINDS: ReadonlySet<string> = new Set(CREATED_KINDS.filter((k) => k !== 'STORAGE INTEGRATION'));

/** Snowflake data type names (a column's or a procedure argument's type). */
export const DATA_TYPES = new Set(
  ['NUMBER', 'DECIMAL', 'DEC', 'NUMERIC', 'INT', 'INTEGER', 'BIGINT', 'SMALLINT', 'TINYINT', 'BYTEINT', 'FLOAT', 'FLOAT4', 'FLOAT8', 'DOUBLE', 'REAL']
    .concat(['VARCHAR', 'CHAR', 'CHARACTER', 'STRING', 'TEXT', 'NCHAR', 'NVARCHAR', 'NVARCHAR2', 'BINARY', 'VARBINARY', 'BOOLEAN', 'DATE', 'DATETIME'])
    .concat(['TIME', 'TIMESTAMP', 'TIMESTAMP_LTZ', 'TIMESTAMP_NTZ', 'TIMESTAMP_TZ', 'VARIANT', 'OBJECT', 'ARRAY', 'MAP', 'GEOGRAPHY', 'GEOMETRY'])
    .concat(['VECTOR', 'FILE']),
);

/** Reserved keywords (the docs' "Reserved & limited keywords": ANSI's and Snowflake's own), not names unless "quoted". */
export const RESERVED = new Set(
  ['ALL', 'ALTER', 'AND', 'ANY', 'AS', 'BETWEEN', 'BY', 'CHECK', 'COLUMN', 'CONNECT', 'CREATE', 'CURRENT', 'DELETE', 'DISTINCT', 'DROP', 'ELSE']
    .concat(['EXISTS', 'FOR', 'FROM', 'GRANT', 'GROUP', 'HAVING', 'ILIKE', 'IN', 'INCREMENT', 'INSERT', 'INTERSECT', 'INTO', 'IS', 'LIKE', 'MINUS'])
    .concat(['NOT', 'NULL', 'OF', 'ON', 'OR', 'ORDER', 'QUALIFY', 'REGEXP', 'REVOKE', 'RLIKE', 'ROW', 'ROWS', 'SAMPLE', 'SELECT', 'SET', 'SOME'])
    .concat(['START', 'TABLE', 'TABLESAMPLE', 'THEN', 'TO', 'TRIGGER', 'UNION', 'UNIQUE', 'UPDATE', 'USING', 'VALUES', 'WHENEVER', 'WHERE', 'WITH']),
);
