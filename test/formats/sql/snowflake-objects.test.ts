// The Snowflake object grammar (src/formats/sql/snowflake-objects.ts) on statements written
// from the Snowflake SQL command reference: what a user sees for each statement family — its
// type, name, properties and tables — and, for malformed input, a ParseFailure naming what was
// expected and where. Embedded statements go to the dialect's real parsers (SqlEngines).
import { beforeAll, describe, expect, it } from 'vitest';
import type { EngineResult, ParseFailure } from '../../../src/formats/sql/engine.js';
import { snowflakeGrammar, statementsOf } from './script.js';

let parse: (sql: string) => EngineResult & { ast: any };
let rejection: (sql: string) => ParseFailure;

beforeAll(async () => {
  ({ parse, rejection } = await snowflakeGrammar());
});

describe('CREATE FILE FORMAT', () => {
  it('gives each option with a typed value: keywords, strings (escapes read), integers, booleans and lists', () => {
    const sql =
      "CREATE OR REPLACE FILE FORMAT analytics.raw.pipe_csv TYPE = CSV FIELD_DELIMITER = '|' RECORD_DELIMITER = '\\n' SKIP_HEADER = 2 " +
      "FIELD_OPTIONALLY_ENCLOSED_BY = '''' NULL_IF = ('\\\\N', 'NULL', '') EMPTY_FIELD_AS_NULL = TRUE DATE_FORMAT = AUTO COMMENT = 'pipe exports'";
    const r = parse(sql);
    expect(r.type).toBe('CREATE FILE FORMAT');
    expect(r.tables).toEqual([]);
    expect(r.ast).toMatchObject({ statement: 'CREATE', objectType: 'FILE FORMAT', name: 'analytics.raw.pipe_csv', orReplace: true, ifNotExists: false });
    expect(r.ast.properties).toEqual([
      { name: 'TYPE', value: 'CSV' },
      { name: 'FIELD_DELIMITER', value: '|' },
      { name: 'RECORD_DELIMITER', value: '\n' },
      { name: 'SKIP_HEADER', value: 2 },
      { name: 'FIELD_OPTIONALLY_ENCLOSED_BY', value: "'" },
      { name: 'NULL_IF', value: ['\\N', 'NULL', ''] },
      { name: 'EMPTY_FIELD_AS_NULL', value: true },
      { name: 'DATE_FORMAT', value: 'AUTO' },
      { name: 'COMMENT', value: 'pipe exports' },
    ]);
  });

  it('checks options against the TYPE given (quoted or not), CSV when none is; a bare CREATE FILE FORMAT <name> is complete', () => {
    const json = parse("CREATE TEMPORARY FILE FORMAT IF NOT EXISTS json_ff TYPE = 'JSON' STRIP_OUTER_ARRAY = TRUE COMPRESSION = 'gzip'");
    expect(json.ast).toMatchObject({
      modifier: 'TEMPORARY',
      ifNotExists: true,
      properties: [{ name: 'TYPE', value: 'JSON' }, {}, { name: 'COMPRESSION', value: 'GZIP' }],
    });
    expect(parse('CREATE FILE FORMAT xml_ff TYPE = XML STRIP_OUTER_ELEMENT = TRUE DISABLE_AUTO_CONVERT = FALSE').ast.properties).toHaveLength(3);
    expect(parse('CREATE FILE FORMAT defaults').ast).toMatchObject({ name: 'defaults', properties: [] });
    expect(parse('CREATE FILE FORMAT "SELECT".raw."with"').ast.name).toBe('"SELECT".raw."with"');
    expect(rejection('CREATE FILE FORMAT ff STRIP_OUTER_ARRAY = TRUE').message).toMatch(
      /^STRIP_OUTER_ARRAY is not a FILE FORMAT option for TYPE = CSV at offset 22$/,
    );
    expect(rejection('CREATE FILE FORMAT ff TYPE = PARQUET COMPRESSION = BZ2').message).toMatch(/COMPRESSION = BZ2 is not a TYPE = PARQUET value/);
  });
});

describe('CREATE STAGE, PIPE, TASK, WAREHOUSE', () => {
  it('a stage: nested option lists (FILE_FORMAT checked like a file format), integration names and WITH TAG', () => {
    const r = parse(
      "CREATE STAGE raw.landing URL = 's3://acme-landing/events/' STORAGE_INTEGRATION = s3_landing " +
        'FILE_FORMAT = (TYPE = PARQUET BINARY_AS_TEXT = FALSE) DIRECTORY = (ENABLE = TRUE AUTO_REFRESH = FALSE) ' +
        "COMMENT = 'raw events' WITH TAG (governance.cost_center = 'data-eng')",
    );
    expect(r.type).toBe('CREATE STAGE');
    expect(r.ast.properties).toEqual([
      { name: 'URL', value: 's3://acme-landing/events/' },
      { name: 'STORAGE_INTEGRATION', value: 's3_landing' },
      {
        name: 'FILE_FORMAT',
        value: [
          { name: 'TYPE', value: 'PARQUET' },
          { name: 'BINARY_AS_TEXT', value: false },
        ],
      },
      {
        name: 'DIRECTORY',
        value: [
          { name: 'ENABLE', value: true },
          { name: 'AUTO_REFRESH', value: false },
        ],
      },
      { name: 'COMMENT', value: 'raw events' },
    ]);
    expect(r.ast.tags).toEqual([{ name: 'governance.cost_center', value: 'data-eng' }]);
    expect(rejection("CREATE STAGE s FILE_FORMAT = (FORMAT_NAME = 'ff' SKIP_HEADER = 1)").message).toMatch(/SKIP_HEADER cannot be given with FORMAT_NAME/);
  });

  it('a pipe: its properties, then the COPY INTO statement, which a real parser reads', () => {
    const sql =
      "CREATE PIPE IF NOT EXISTS ingest.events_pipe AUTO_INGEST = TRUE ERROR_INTEGRATION = notify_errors AWS_SNS_TOPIC = 'arn:aws:sns:eu-west-1:1:landing' " +
      "AS COPY INTO ingest.events (id, payload) FROM (SELECT $1:id, $1 FROM @ingest.landing/events/) FILE_FORMAT = (TYPE = 'JSON')";
    const r = parse(sql);
    expect(r.type).toBe('CREATE PIPE');
    expect(r.ast.properties.map((p: any) => p.name)).toEqual(['AUTO_INGEST', 'ERROR_INTEGRATION', 'AWS_SNS_TOPIC']);
    expect(r.ast.body).toMatchObject({ type: 'COPY INTO' });
    expect(rejection('CREATE PIPE p AS SELECT 1').message).toMatch(/^expected COPY INTO .* found 'SELECT' at offset 17$/);
  });

  it('a task: warehouse, schedule, comma-separated session parameters, AFTER, WHEN (an expression a real parser reads) and the statement it runs, whose tables count', () => {
    const sql =
      "CREATE OR REPLACE TASK etl.load_orders WAREHOUSE = etl_wh TIMEZONE = 'UTC', QUERY_TAG = 'etl' SUSPEND_TASK_AFTER_NUM_FAILURES = 3 " +
      "AFTER etl.extract_orders, etl.extract_customers WHEN SYSTEM$STREAM_HAS_DATA('etl.orders_stream') " +
      'AS INSERT INTO etl.orders SELECT id, amount FROM etl.orders_stream';
    const r = parse(sql);
    expect(r.type).toBe('CREATE TASK');
    expect(r.ast).toMatchObject({
      name: 'etl.load_orders',
      properties: [
        { name: 'WAREHOUSE', value: 'etl_wh' },
        { name: 'TIMEZONE', value: 'UTC' },
        { name: 'QUERY_TAG', value: 'etl' },
        { name: 'SUSPEND_TASK_AFTER_NUM_FAILURES', value: 3 },
      ],
      after: ['etl.extract_orders', 'etl.extract_customers'],
      when: "SYSTEM$STREAM_HAS_DATA('etl.orders_stream')",
      body: { type: 'INSERT' },
    });
    expect(r.tables).toEqual(['etl.orders', 'etl.orders_stream']);
    expect(r.columns).toEqual(['id', 'amount']);
  });

  it('a serverless task whose body is a BEGIN … END scripting block', () => {
    const r = parse(
      "CREATE TASK nightly USER_TASK_MANAGED_INITIAL_WAREHOUSE_SIZE = 'SMALL' SCHEDULE = 'USING CRON 0 3 * * * Europe/Paris' AS\n" +
        'BEGIN\n  UPDATE etl.state SET last_run = CURRENT_TIMESTAMP();\n  DELETE FROM etl.staging WHERE loaded;\nEND',
    );
    expect(r.ast.properties[0]).toEqual({ name: 'USER_TASK_MANAGED_INITIAL_WAREHOUSE_SIZE', value: 'SMALL' });
    expect(r.tables).toEqual(['etl.state', 'etl.staging']);
    expect(rejection("CREATE TASK t WAREHOUSE = wh USER_TASK_MANAGED_INITIAL_WAREHOUSE_SIZE = 'SMALL' AS SELECT 1").message).toMatch(
      /WAREHOUSE and USER_TASK_MANAGED_INITIAL_WAREHOUSE_SIZE cannot both be given at offset 29/,
    );
  });

  it('a task body BEGIN … END is a Snowflake Scripting block (snowflake-scripting.ts): each statement goes to the parsers; a statement none reads rejects it where it stands', () => {
    const r = parse(
      'CREATE TASK refresh_landing WAREHOUSE = etl_wh AS BEGIN\n  ALTER PIPE raw.orders_pipe REFRESH;\n  INSERT INTO etl.log SELECT CURRENT_TIMESTAMP();\nEND',
    );
    expect(r.ast.body).toMatchObject({ statement: 'BLOCK' });
    expect(r.ast.body.body.map((s: any) => s.type)).toEqual(['ALTER PIPE', 'INSERT']);
    expect(r.tables).toEqual(['etl.log']);
    expect(parse('ALTER TASK t MODIFY AS BEGIN CREATE FILE FORMAT f TYPE = JSON; ALTER WAREHOUSE w SUSPEND; END').ast.body.statement).toBe('BLOCK');
    const unread = 'CREATE TASK t WAREHOUSE = w AS BEGIN ALTER PIPE p REFRESH; FROBNICATE n; END';
    expect(rejection(unread)).toMatchObject({
      message: expect.stringMatching(/^no Snowflake parser accepts this statement of the block/),
      offset: unread.indexOf('FROBNICATE'),
    });
    const unterminated = 'CREATE TASK t WAREHOUSE = w AS BEGIN ALTER PIPE p REFRESH; INSERT INTO l SELECT 1 END';
    expect(rejection(unterminated)).toMatchObject({
      message: expect.stringMatching(/^expected ';' after the INSERT statement, found end of statement/),
      offset: unterminated.length,
    });
  });

  it('a warehouse: WITH before the properties, IDENTIFIER($name), session variables as values, TAG then its parameters', () => {
    const r = parse(
      "CREATE WAREHOUSE IF NOT EXISTS IDENTIFIER($wh) WITH WAREHOUSE_SIZE = 'X-SMALL' AUTO_SUSPEND = $idle AUTO_RESUME = TRUE " +
        "INITIALLY_SUSPENDED = TRUE SCALING_POLICY = ECONOMY TAG (team = 'bi') STATEMENT_TIMEOUT_IN_SECONDS = 3600",
    );
    expect(r.type).toBe('CREATE WAREHOUSE');
    expect(r.ast).toMatchObject({ name: 'IDENTIFIER($wh)', ifNotExists: true, tags: [{ name: 'team', value: 'bi' }] });
    expect(r.ast.properties).toEqual([
      { name: 'WAREHOUSE_SIZE', value: 'X-SMALL' },
      { name: 'AUTO_SUSPEND', value: { variable: 'idle' } },
      { name: 'AUTO_RESUME', value: true },
      { name: 'INITIALLY_SUSPENDED', value: true },
      { name: 'SCALING_POLICY', value: 'ECONOMY' },
      { name: 'STATEMENT_TIMEOUT_IN_SECONDS', value: 3600 },
    ]);
  });
});

describe('CREATE DYNAMIC TABLE', () => {
  it('columns with types, policies and comments; properties in any order; clustering, row access policy; the query read by a real parser', () => {
    const sql =
      'CREATE OR REPLACE TRANSIENT DYNAMIC TABLE sales.daily_totals (' +
      "region VARCHAR(32) WITH MASKING POLICY gov.region_mask USING (region, day_of_sale) COMMENT 'sales region', " +
      "day_of_sale DATE TAG (gov.pii = 'none'), total NUMBER(38, 2)) " +
      "WAREHOUSE = transform_wh TARGET_LAG = '30 minutes' REFRESH_MODE = INCREMENTAL CLUSTER BY (region) " +
      'WITH ROW ACCESS POLICY gov.by_region ON (region) ' +
      'AS SELECT region, day_of_sale, SUM(amount) AS total FROM sales.orders GROUP BY region, day_of_sale';
    const r = parse(sql);
    expect(r.type).toBe('CREATE DYNAMIC TABLE');
    expect(r.tables).toEqual(['sales.daily_totals', 'sales.orders']);
    expect(r.columns).toEqual(['region', 'day_of_sale', 'total', 'amount']);
    expect(r.ast).toMatchObject({
      modifier: 'TRANSIENT',
      columns: [
        { name: 'region', type: 'VARCHAR(32)', maskingPolicy: 'gov.region_mask', using: ['region', 'day_of_sale'], comment: 'sales region' },
        { name: 'day_of_sale', type: 'DATE', tags: [{ name: 'gov.pii', value: 'none' }] },
        { name: 'total', type: 'NUMBER(38, 2)' },
      ],
      properties: [
        { name: 'WAREHOUSE', value: 'transform_wh' },
        { name: 'TARGET_LAG', value: '30 minutes' },
        { name: 'REFRESH_MODE', value: 'INCREMENTAL' },
      ],
      clusterBy: 'region',
      rowAccessPolicy: { policy: 'gov.by_region', on: ['region'] },
      body: { type: 'SELECT' },
    });
  });

  it('needs TARGET_LAG and WAREHOUSE, a data type or nothing after each listed column, and a query some parser accepts', () => {
    expect(rejection('CREATE DYNAMIC TABLE d WAREHOUSE = w AS SELECT 1').message).toBe('CREATE DYNAMIC TABLE needs TARGET_LAG before AS at offset 37');
    // A column listed without its type takes the query's (the docs' own example writes one so).
    expect(parse('CREATE DYNAMIC TABLE d (a, b INT) TARGET_LAG = DOWNSTREAM WAREHOUSE = w AS SELECT 1, 2').ast.columns).toEqual([
      { name: 'a' },
      { name: 'b', type: 'INT' },
    ]);
    expect(rejection('CREATE DYNAMIC TABLE d (a 42) TARGET_LAG = DOWNSTREAM WAREHOUSE = w AS SELECT 1').message).toMatch(
      /^expected a data type for column a, found '42'/,
    );
    const bad = 'CREATE DYNAMIC TABLE d TARGET_LAG = DOWNSTREAM WAREHOUSE = w AS SELECT a FROM t WHERE a >';
    const f = rejection(bad);
    expect(f.message).toMatch(/no Snowflake parser accepts the query after AS/);
    expect(f.offset).toBe(bad.indexOf('SELECT'));
  });
});

describe('CREATE OR ALTER', () => {
  it('every created kind with a documented OR ALTER variant: orAlter in the AST, the CREATE syntax otherwise', () => {
    const cases: [string, string][] = [
      ["CREATE OR ALTER FILE FORMAT ff TYPE = JSON STRIP_OUTER_ARRAY = TRUE COMMENT = 'json'", 'CREATE FILE FORMAT'],
      ["CREATE OR ALTER TEMPORARY STAGE st URL = 's3://bucket/x/' DIRECTORY = (ENABLE = TRUE)", 'CREATE STAGE'],
      ['CREATE OR ALTER PIPE p PIPE_EXECUTION_PAUSED = TRUE AS COPY INTO raw.events FROM @raw.landing', 'CREATE PIPE'],
      ['CREATE OR ALTER TASK t WAREHOUSE = wh AFTER t0 AS SELECT 1', 'CREATE TASK'],
      ["CREATE OR ALTER WAREHOUSE wh WITH WAREHOUSE_SIZE = XSMALL GENERATION = '2' AUTO_SUSPEND = 60", 'CREATE WAREHOUSE'],
      ['CREATE OR ALTER TRANSIENT DYNAMIC TABLE d TARGET_LAG = DOWNSTREAM WAREHOUSE = wh AS SELECT a FROM t', 'CREATE DYNAMIC TABLE'],
      ["CREATE OR ALTER STREAM s ON TABLE t COMMENT = 'changes'", 'CREATE STREAM'],
      ["CREATE OR ALTER MASKING POLICY m AS (v STRING) RETURNS STRING -> '***'", 'CREATE MASKING POLICY'],
      ['CREATE OR ALTER ROW ACCESS POLICY r AS (v VARCHAR) RETURNS BOOLEAN -> TRUE', 'CREATE ROW ACCESS POLICY'],
      ["CREATE OR ALTER DATABASE ROLE d1.reader COMMENT = 'read only'", 'CREATE DATABASE ROLE'],
    ];
    for (const [sql, type] of cases) {
      const r = parse(sql);
      expect(r.type).toBe(type);
      expect(r.ast).toMatchObject({ orAlter: true, orReplace: false, ifNotExists: false });
    }
    expect(parse('CREATE TASK t AS SELECT 1').ast).not.toHaveProperty('orAlter');
  });

  it('rejects OR ALTER with OR REPLACE or IF NOT EXISTS, on a kind without the variant, and with tags or policies (not supported by CREATE OR ALTER)', () => {
    expect(rejection('CREATE OR REPLACE OR ALTER TASK t AS SELECT 1').message).toBe('OR REPLACE and OR ALTER cannot both be given at offset 18');
    expect(rejection('CREATE OR ALTER TASK IF NOT EXISTS t AS SELECT 1').message).toBe('CREATE OR ALTER does not take IF NOT EXISTS at offset 21');
    expect(rejection("CREATE OR ALTER STORAGE INTEGRATION i TYPE = EXTERNAL_STAGE STORAGE_PROVIDER = 'GCS'").message).toBe(
      'CREATE OR ALTER is not documented for STORAGE INTEGRATION at offset 16',
    );
    expect(rejection("CREATE OR ALTER TASK t WITH TAG (a = 'b') AS SELECT 1").message).toBe('CREATE OR ALTER cannot set tags at offset 23');
    expect(rejection("CREATE OR ALTER WAREHOUSE w TAG (a = 'b')").message).toMatch(/^CREATE OR ALTER cannot set tags/);
    expect(
      rejection('CREATE OR ALTER DYNAMIC TABLE d TARGET_LAG = DOWNSTREAM WAREHOUSE = w WITH ROW ACCESS POLICY p ON (a) AS SELECT a FROM t').message,
    ).toMatch(/^CREATE OR ALTER DYNAMIC TABLE does not take ROW ACCESS POLICY/);
    expect(rejection('CREATE OR ALTER DYNAMIC TABLE d (a INT MASKING POLICY m) TARGET_LAG = DOWNSTREAM WAREHOUSE = w AS SELECT a FROM t').message).toMatch(
      /^CREATE OR ALTER cannot set a column's policies/,
    );
    // PIPE_EXECUTION_PAUSED belongs to CREATE OR ALTER PIPE only.
    expect(rejection('CREATE PIPE p PIPE_EXECUTION_PAUSED = TRUE AS COPY INTO t FROM @s').message).toMatch(/^unknown PIPE property PIPE_EXECUTION_PAUSED/);
  });
});

describe('CREATE STREAM, MASKING POLICY, ROW ACCESS POLICY, STORAGE INTEGRATION, DATABASE ROLE', () => {
  it('a stream: its source (a table or view counts among the tables, a stage does not), AT | BEFORE, and the properties its source documents', () => {
    const r = parse(
      "CREATE OR REPLACE STREAM cdc.orders_s WITH TAG (gov.owner = 'etl') COPY GRANTS ON TABLE sales.orders " +
        "AT (TIMESTAMP => TO_TIMESTAMP_TZ('2024-01-02 03:04:05')) APPEND_ONLY = TRUE SHOW_INITIAL_ROWS = FALSE COMMENT = 'inserts'",
    );
    expect(r.type).toBe('CREATE STREAM');
    expect(r.tables).toEqual(['sales.orders']);
    expect(r.ast).toMatchObject({
      name: 'cdc.orders_s',
      tags: [{ name: 'gov.owner', value: 'etl' }],
      copyGrants: true,
      on: { objectType: 'TABLE', name: 'sales.orders' },
      timeTravel: { at: { timestamp: "TO_TIMESTAMP_TZ('2024-01-02 03:04:05')" } },
      properties: [
        { name: 'APPEND_ONLY', value: true },
        { name: 'SHOW_INITIAL_ROWS', value: false },
        { name: 'COMMENT', value: 'inserts' },
      ],
    });
    expect(parse("CREATE STREAM s ON VIEW v BEFORE (STATEMENT => '8e5d0ca9-005e-44e6-b858-a8f5b37c5726')").ast.timeTravel).toEqual({
      before: { statement: "'8e5d0ca9-005e-44e6-b858-a8f5b37c5726'" },
    });
    expect(parse("CREATE STREAM s ON TABLE t AT (STREAM => 'old_s')").ast.timeTravel).toEqual({ at: { stream: 'old_s' } });
    expect(parse('CREATE STREAM s ON EXTERNAL TABLE ext.logs INSERT_ONLY = TRUE').tables).toEqual(['ext.logs']);
    const stage = parse('CREATE STREAM s ON STAGE raw.landing');
    expect(stage.ast.on).toEqual({ objectType: 'STAGE', name: 'raw.landing' });
    expect(stage.tables).toEqual([]);
    expect(parse('CREATE STREAM s ON DIRECTORY(@raw.docs)').ast.on).toEqual({ objectType: 'DIRECTORY', name: '@raw.docs' });
    expect(rejection('CREATE STREAM s ON TABLE t INSERT_ONLY = TRUE').message).toMatch(/^unknown STREAM ON TABLE property INSERT_ONLY/);
    expect(rejection('CREATE STREAM s ON STAGE st AT (OFFSET => -60)').message).toMatch(/AT \| BEFORE is not documented for streams on a stage/);
    expect(rejection("CREATE STREAM s ON TABLE t BEFORE (STREAM => 's0')").message).toMatch(/^expected TIMESTAMP, OFFSET, STATEMENT in BEFORE/);
    expect(rejection('CREATE STREAM s ON SCHEMA x').message).toMatch(/^expected the stream's source after ON/);
  });

  it('a masking policy: its signature (the arguments are columns), return type, body read by a real parser, then its properties', () => {
    const r = parse(
      'CREATE OR REPLACE MASKING POLICY gov.email_mask AS (val STRING, visibility VARCHAR(10)) RETURNS STRING -> ' +
        "CASE WHEN CURRENT_ROLE() IN ('ANALYST') OR visibility = 'public' THEN val ELSE '***' END " +
        "COMMENT = 'emails' EXEMPT_OTHER_POLICIES = TRUE",
    );
    expect(r.type).toBe('CREATE MASKING POLICY');
    expect(r.tables).toEqual([]);
    expect(r.columns).toEqual(['val', 'visibility']);
    expect(r.ast).toMatchObject({
      name: 'gov.email_mask',
      args: [
        { name: 'val', type: 'STRING' },
        { name: 'visibility', type: 'VARCHAR(10)' },
      ],
      returns: 'STRING',
      body: "CASE WHEN CURRENT_ROLE() IN ('ANALYST') OR visibility = 'public' THEN val ELSE '***' END",
      properties: [
        { name: 'COMMENT', value: 'emails' },
        { name: 'EXEMPT_OTHER_POLICIES', value: true },
      ],
    });
    // The body runs to the first documented property; anything else stays in it, and no parser reads it.
    expect(rejection("CREATE MASKING POLICY m AS (v STRING) RETURNS STRING -> v TAG = 'x'").message).toMatch(
      /^no Snowflake parser accepts a policy body 'v TAG = 'x''/,
    );
    expect(rejection('CREATE MASKING POLICY m AS (v STRING) RETURNS STRING v').message).toMatch(/^expected '->' before the policy body, found 'v'/);
    expect(rejection('CREATE MASKING POLICY m AS (v STRING) RETURNS STRING -> v +').message).toMatch(
      /^no Snowflake parser accepts a policy body 'v \+' at offset 56$/,
    );
  });

  it('a row access policy returns BOOLEAN; a mapping table in its body counts among the tables', () => {
    const r = parse(
      "CREATE ROW ACCESS POLICY gov.by_region AS (region VARCHAR) RETURNS BOOLEAN -> 'exec' = CURRENT_ROLE() " +
        'OR EXISTS (SELECT 1 FROM gov.region_map WHERE manager = CURRENT_ROLE() AND r = region)',
    );
    expect(r.type).toBe('CREATE ROW ACCESS POLICY');
    expect(r.tables).toEqual(['gov.region_map']);
    expect(r.columns).toEqual(['region']);
    expect(rejection('CREATE ROW ACCESS POLICY p AS (a INT) RETURNS INT -> TRUE').message).toMatch(
      /^expected BOOLEAN \(a row access policy returns BOOLEAN\), found 'INT'/,
    );
    expect(rejection('CREATE ROW ACCESS POLICY p AS (a INT) RETURNS BOOLEAN -> TRUE EXEMPT_OTHER_POLICIES = TRUE').message).toMatch(
      /^no Snowflake parser accepts a policy body 'TRUE EXEMPT_OTHER_POLICIES = TRUE'/,
    );
  });

  it('a storage integration: the common properties and the parameters of its STORAGE_PROVIDER', () => {
    const r = parse(
      "CREATE STORAGE INTEGRATION s3_int TYPE = EXTERNAL_STAGE STORAGE_PROVIDER = 'S3' STORAGE_AWS_ROLE_ARN = 'arn:aws:iam::1:role/r' " +
        "ENABLED = TRUE STORAGE_ALLOWED_LOCATIONS = ('s3://a/x/', 's3://b/') STORAGE_BLOCKED_LOCATIONS = ('s3://a/x/secret/')",
    );
    expect(r.type).toBe('CREATE STORAGE INTEGRATION');
    expect(r.ast.properties.map((p: any) => p.name)).toEqual([
      'TYPE',
      'STORAGE_PROVIDER',
      'STORAGE_AWS_ROLE_ARN',
      'ENABLED',
      'STORAGE_ALLOWED_LOCATIONS',
      'STORAGE_BLOCKED_LOCATIONS',
    ]);
    expect(parse("CREATE STORAGE INTEGRATION g TYPE = EXTERNAL_STAGE STORAGE_PROVIDER = 'GCS' ENABLED = FALSE STORAGE_ALLOWED_LOCATIONS = ('*')").type).toBe(
      'CREATE STORAGE INTEGRATION',
    );
    expect(
      rejection(
        "CREATE STORAGE INTEGRATION g TYPE = EXTERNAL_STAGE STORAGE_PROVIDER = 'GCS' AZURE_TENANT_ID = 'x' ENABLED = TRUE STORAGE_ALLOWED_LOCATIONS = ('*')",
      ).message,
    ).toMatch(/^AZURE_TENANT_ID is not a parameter of STORAGE_PROVIDER = 'GCS'/);
    expect(
      rejection("CREATE STORAGE INTEGRATION a TYPE = EXTERNAL_STAGE STORAGE_PROVIDER = 'AZURE' ENABLED = TRUE STORAGE_ALLOWED_LOCATIONS = ('*')").message,
    ).toMatch(/^STORAGE_PROVIDER = 'AZURE' needs AZURE_TENANT_ID/);
    expect(rejection("CREATE STORAGE INTEGRATION a TYPE = EXTERNAL_STAGE STORAGE_PROVIDER = 'GCS' ENABLED = TRUE").message).toMatch(
      /^CREATE STORAGE INTEGRATION needs STORAGE_ALLOWED_LOCATIONS/,
    );
  });

  it('a database role takes a comment only', () => {
    expect(parse("CREATE DATABASE ROLE IF NOT EXISTS d1.analyst COMMENT = 'analysts'").ast).toMatchObject({
      objectType: 'DATABASE ROLE',
      name: 'd1.analyst',
      properties: [{ name: 'COMMENT', value: 'analysts' }],
    });
    expect(parse('ALTER DATABASE ROLE d1.analyst RENAME TO d1.analysts').type).toBe('ALTER DATABASE ROLE');
    expect(parse('DROP DATABASE ROLE IF EXISTS d1.analyst').type).toBe('DROP DATABASE ROLE');
    expect(rejection('CREATE DATABASE ROLE d1.r ENABLED = TRUE').message).toMatch(/^unknown DATABASE ROLE property ENABLED/);
  });
});

describe('stage file formats by name, pipes in parentheses, warehouse tables, frozen regions, dynamic Iceberg tables', () => {
  it('a stage names its file format bare (as the docs examples write it) or in ( … )', () => {
    expect(parse('CREATE STAGE s DIRECTORY = (ENABLE = TRUE) FILE_FORMAT = raw.csv_ff').ast.properties[1]).toEqual({
      name: 'FILE_FORMAT',
      value: 'raw.csv_ff',
    });
    expect(parse('ALTER STAGE s SET FILE_FORMAT = json_ff').ast.properties).toEqual([{ name: 'FILE_FORMAT', value: 'json_ff' }]);
    expect(rejection('CREATE STAGE s FILE_FORMAT = 42').message).toMatch(/^expected '\(' to open FILE_FORMAT options \(or a file format name\)/);
  });

  it('a pipe body in parentheses is the COPY INTO statement inside them', () => {
    const r = parse("CREATE PIPE p AS (COPY INTO raw.events FROM @raw.landing FILE_FORMAT = (TYPE = 'JSON'))");
    expect(r.ast.body).toMatchObject({ type: 'COPY INTO' });
    expect(r.tables).toContain('raw.events');
    expect(rejection('CREATE PIPE p AS (COPY INTO raw.events FROM @raw.landing) x').message).toMatch(/^expected '\)' closing the COPY INTO statement/);
  });

  it('ALTER WAREHOUSE ADD | DROP TABLES (interactive warehouses), ENABLE | DISABLE (adaptive)', () => {
    const r = parse('ALTER WAREHOUSE interactive_wh ADD TABLES (sales.orders, sales.customers)');
    expect(r.ast).toMatchObject({ action: 'ADD TABLES', tables: ['sales.orders', 'sales.customers'] });
    expect(r.tables).toEqual(['sales.orders', 'sales.customers']);
    expect(parse('ALTER WAREHOUSE w DROP TABLES (t)').ast.action).toBe('DROP TABLES');
    expect(parse('ALTER WAREHOUSE w DISABLE').ast.action).toBe('DISABLE');
    expect(rejection('ALTER WAREHOUSE w REMOVE TABLES (t)').message).toMatch(/^expected an ALTER WAREHOUSE action/);
  });

  it('a dynamic table: FROZEN WHERE (and its former IMMUTABLE WHERE), SCHEDULER, EXECUTE AS USER; TARGET_LAG may be left out when SCHEDULER = DISABLE', () => {
    const r = parse(
      "CREATE DYNAMIC TABLE d TARGET_LAG = '1 hour' WAREHOUSE = w FROZEN WHERE (ts < CURRENT_TIMESTAMP() - INTERVAL '1 day') " +
        'EXECUTE AS USER etl_user USE SECONDARY ROLES ALL AS SELECT ts FROM t',
    );
    expect(r.ast).toMatchObject({ frozenWhere: "ts < CURRENT_TIMESTAMP() - INTERVAL '1 day'", executeAsUser: { user: 'etl_user', secondaryRoles: 'ALL' } });
    expect(parse('CREATE DYNAMIC TABLE d TARGET_LAG = DOWNSTREAM WAREHOUSE = w IMMUTABLE WHERE (a > 1) AS SELECT a FROM t').ast.frozenWhere).toBe('a > 1');
    expect(parse('CREATE DYNAMIC TABLE d SCHEDULER = DISABLE WAREHOUSE = w AS SELECT a FROM t').type).toBe('CREATE DYNAMIC TABLE');
    expect(rejection('CREATE DYNAMIC TABLE d TARGET_LAG = DOWNSTREAM WAREHOUSE = w FROZEN WHERE (a) FROZEN WHERE (b) AS SELECT a FROM t').message).toMatch(
      /^FROZEN WHERE is given twice/,
    );
  });

  it('CREATE DYNAMIC TABLE … CLONE: the source (at a point in time) counts among the tables; OR ALTER has no CLONE variant', () => {
    const r = parse("CREATE OR REPLACE DYNAMIC TABLE sales.daily_copy CLONE sales.daily AT (OFFSET => -3600) COPY GRANTS TARGET_LAG = '1 hour' WAREHOUSE = w");
    expect(r.type).toBe('CREATE DYNAMIC TABLE');
    expect(r.tables).toEqual(['sales.daily_copy', 'sales.daily']);
    expect(r.ast).toMatchObject({ clone: 'sales.daily', timeTravel: { at: { offset: '-3600' } }, copyGrants: true });
    expect(rejection("CREATE DYNAMIC TABLE d CLONE s AT (STREAM => 's')").message).toMatch(/^expected TIMESTAMP, OFFSET, STATEMENT in AT/);
    expect(rejection('CREATE OR ALTER DYNAMIC TABLE d CLONE s').message).toMatch(/CREATE OR ALTER DYNAMIC TABLE … CLONE is not documented/);
  });

  it('CREATE DYNAMIC ICEBERG TABLE: the Iceberg storage properties and PARTITION BY; the table counts', () => {
    const r = parse(
      "CREATE OR REPLACE DYNAMIC ICEBERG TABLE lake.daily (day DATE, n NUMBER(10, 0)) TARGET_LAG = '20 minutes' WAREHOUSE = w " +
        "EXTERNAL_VOLUME = 'vol' CATALOG = 'SNOWFLAKE' BASE_LOCATION = 'daily' ICEBERG_VERSION = 3 PARTITION BY (day) " +
        'AS SELECT day, COUNT(*) AS n FROM lake.events GROUP BY day',
    );
    expect(r.type).toBe('CREATE DYNAMIC ICEBERG TABLE');
    expect(r.tables).toEqual(['lake.daily', 'lake.events']);
    expect(r.ast).toMatchObject({ partitionBy: 'day', properties: expect.arrayContaining([{ name: 'ICEBERG_VERSION', value: 3 }]) });
    expect(rejection("CREATE DYNAMIC ICEBERG TABLE d TARGET_LAG = '1 hour' WAREHOUSE = w SCHEDULER = DISABLE AS SELECT 1").message).toMatch(
      /^unknown DYNAMIC ICEBERG TABLE property SCHEDULER/,
    );
    expect(rejection("CREATE TRANSIENT DYNAMIC ICEBERG TABLE d TARGET_LAG = '1 hour' WAREHOUSE = w AS SELECT 1").message).toMatch(
      /^TRANSIENT does not apply to CREATE DYNAMIC ICEBERG TABLE/,
    );
  });
});

describe('ALTER <object>', () => {
  const cases: [string, string, Record<string, unknown>][] = [
    ['ALTER WAREHOUSE IF EXISTS etl_wh RESUME IF SUSPENDED', 'ALTER WAREHOUSE', { name: 'etl_wh', ifExists: true, action: 'RESUME IF SUSPENDED' }],
    ['ALTER WAREHOUSE ABORT ALL QUERIES', 'ALTER WAREHOUSE', { name: null, action: 'ABORT ALL QUERIES' }],
    [
      'ALTER WAREHOUSE etl_wh SET WAREHOUSE_SIZE = LARGE, MAX_CLUSTER_COUNT = 3',
      'ALTER WAREHOUSE',
      {
        action: 'SET',
        properties: [
          { name: 'WAREHOUSE_SIZE', value: 'LARGE' },
          { name: 'MAX_CLUSTER_COUNT', value: 3 },
        ],
      },
    ],
    ['ALTER WAREHOUSE etl_wh SET AUTO_SUSPEND = NULL', 'ALTER WAREHOUSE', { action: 'SET', properties: [{ name: 'AUTO_SUSPEND', value: null }] }],
    ['ALTER WAREHOUSE etl_wh UNSET RESOURCE_MONITOR, COMMENT', 'ALTER WAREHOUSE', { action: 'UNSET', properties: ['RESOURCE_MONITOR', 'COMMENT'] }],
    [
      "ALTER WAREHOUSE etl_wh SET TAG team = 'bi', tier = 'gold'",
      'ALTER WAREHOUSE',
      {
        action: 'SET TAG',
        tags: [
          { name: 'team', value: 'bi' },
          { name: 'tier', value: 'gold' },
        ],
      },
    ],
    [
      "ALTER DYNAMIC TABLE sales.daily SET TARGET_LAG = '1 hour'",
      'ALTER DYNAMIC TABLE',
      { action: 'SET', properties: [{ name: 'TARGET_LAG', value: '1 hour' }] },
    ],
    ['ALTER DYNAMIC TABLE sales.daily REFRESH', 'ALTER DYNAMIC TABLE', { action: 'REFRESH' }],
    ['ALTER DYNAMIC TABLE sales.daily SUSPEND RECLUSTER', 'ALTER DYNAMIC TABLE', { action: 'SUSPEND RECLUSTER' }],
    [
      'ALTER DYNAMIC TABLE sales.daily ADD ROW ACCESS POLICY gov.rap ON (region, country)',
      'ALTER DYNAMIC TABLE',
      { action: 'ADD ROW ACCESS POLICY', policy: 'gov.rap', on: ['region', 'country'] },
    ],
    ['ALTER DYNAMIC TABLE sales.daily DROP ALL ROW ACCESS POLICIES', 'ALTER DYNAMIC TABLE', { action: 'DROP ALL ROW ACCESS POLICIES' }],
    ['ALTER TASK etl.load ADD AFTER etl.a, etl.b', 'ALTER TASK', { action: 'ADD AFTER', tasks: ['etl.a', 'etl.b'] }],
    ["ALTER TASK etl.load MODIFY WHEN SYSTEM$STREAM_HAS_DATA('s')", 'ALTER TASK', { action: 'MODIFY WHEN', when: "SYSTEM$STREAM_HAS_DATA('s')" }],
    [
      "ALTER TASK etl.load SET SCHEDULE = 'USING CRON 0 2 * * * UTC', WEEK_START = 1",
      'ALTER TASK',
      {
        action: 'SET',
        properties: [
          { name: 'SCHEDULE', value: 'USING CRON 0 2 * * * UTC' },
          { name: 'WEEK_START', value: 1 },
        ],
      },
    ],
    ['ALTER TASK etl.load UNSET WEEK_START, COMMENT', 'ALTER TASK', { action: 'UNSET', properties: ['WEEK_START', 'COMMENT'] }],
    [
      "ALTER PIPE ingest.p REFRESH PREFIX = 'd1/' MODIFIED_AFTER = '2024-01-01T00:00:00Z'",
      'ALTER PIPE',
      {
        action: 'REFRESH',
        properties: [
          { name: 'PREFIX', value: 'd1/' },
          { name: 'MODIFIED_AFTER', value: '2024-01-01T00:00:00Z' },
        ],
      },
    ],
    ['ALTER PIPE ingest.p SET PIPE_EXECUTION_PAUSED = TRUE', 'ALTER PIPE', { action: 'SET', properties: [{ name: 'PIPE_EXECUTION_PAUSED', value: true }] }],
    [
      "ALTER STAGE raw.landing SET FILE_FORMAT = (FORMAT_NAME = 'raw.csv_ff') COMMENT = 'csv now'",
      'ALTER STAGE',
      {
        action: 'SET',
        properties: [
          { name: 'FILE_FORMAT', value: [{ name: 'FORMAT_NAME', value: 'raw.csv_ff' }] },
          { name: 'COMMENT', value: 'csv now' },
        ],
      },
    ],
    ["ALTER STAGE raw.landing REFRESH SUBPATH = '2024/'", 'ALTER STAGE', { action: 'REFRESH', properties: [{ name: 'SUBPATH', value: '2024/' }] }],
    ['ALTER FILE FORMAT raw.csv_ff SET SKIP_HEADER = 1 TRIM_SPACE = TRUE', 'ALTER FILE FORMAT', { action: 'SET' }],
    ['ALTER FILE FORMAT IF EXISTS raw.csv_ff RENAME TO raw.csv_v2', 'ALTER FILE FORMAT', { ifExists: true, action: 'RENAME', newName: 'raw.csv_v2' }],
    ['ALTER SEQUENCE ids SET INCREMENT BY = 5', 'ALTER SEQUENCE', { action: 'SET INCREMENT', increment: 5 }],
    [
      "ALTER SEQUENCE ids SET NOORDER COMMENT = 'fast'",
      'ALTER SEQUENCE',
      {
        action: 'SET',
        properties: [
          { name: 'NOORDER', value: true },
          { name: 'COMMENT', value: 'fast' },
        ],
      },
    ],
    ["ALTER ACCOUNT SET TIMEZONE = 'UTC' NETWORK_POLICY = corp_only", 'ALTER ACCOUNT', { name: null, action: 'SET' }],
    [
      'ALTER ACCOUNT acme_dev RENAME TO acme_test SAVE_OLD_URL = FALSE',
      'ALTER ACCOUNT',
      { name: 'acme_dev', action: 'RENAME', newName: 'acme_test', saveOldUrl: false },
    ],
    ['ALTER ACCOUNT SET PACKAGES POLICY gov.packages FORCE', 'ALTER ACCOUNT', { action: 'SET PACKAGES POLICY', policy: 'gov.packages', force: true }],
    [
      "ALTER STORAGE INTEGRATION s3_int SET STORAGE_ALLOWED_LOCATIONS = ('s3://a/', 's3://b/') ENABLED = TRUE",
      'ALTER STORAGE INTEGRATION',
      {
        action: 'SET',
        properties: [
          { name: 'STORAGE_ALLOWED_LOCATIONS', value: ['s3://a/', 's3://b/'] },
          { name: 'ENABLED', value: true },
        ],
      },
    ],
    ['ALTER API INTEGRATION gateway UNSET API_KEY', 'ALTER API INTEGRATION', { action: 'UNSET', properties: ['API_KEY'] }],
    [
      "ALTER NOTIFICATION INTEGRATION alerts SET GCP_PUBSUB_SUBSCRIPTION_NAME = 'projects/p/subscriptions/s'",
      'ALTER NOTIFICATION INTEGRATION',
      { action: 'SET' },
    ],
    ['ALTER SECURITY INTEGRATION okta UNSET COMMENT', 'ALTER SECURITY INTEGRATION', { action: 'UNSET' }],
    [
      'ALTER CONNECTION prod_conn ENABLE FAILOVER TO ACCOUNTS acme.dr_east, acme.dr_west',
      'ALTER CONNECTION',
      { action: 'ENABLE FAILOVER', accounts: ['acme.dr_east', 'acme.dr_west'] },
    ],
    ['ALTER DATABASE analytics SET DATA_RETENTION_TIME_IN_DAYS = 7', 'ALTER DATABASE', { action: 'SET' }],
    ['ALTER DATABASE analytics SWAP WITH analytics_next', 'ALTER DATABASE', { action: 'SWAP', target: 'analytics_next' }],
    [
      'ALTER FAILOVER GROUP fg ADD db1, db2 TO ALLOWED_DATABASES',
      'ALTER FAILOVER GROUP',
      { action: 'ADD', members: ['db1', 'db2'], list: 'ALLOWED_DATABASES' },
    ],
    [
      "ALTER REPLICATION GROUP rg SET OBJECT_TYPES = DATABASES, ROLES REPLICATION_SCHEDULE = '10 MINUTE'",
      'ALTER REPLICATION GROUP',
      {
        action: 'SET',
        properties: [
          { name: 'OBJECT_TYPES', value: ['DATABASES', 'ROLES'] },
          { name: 'REPLICATION_SCHEDULE', value: '10 MINUTE' },
        ],
      },
    ],
    ['ALTER FAILOVER GROUP fg SUSPEND IMMEDIATE', 'ALTER FAILOVER GROUP', { action: 'SUSPEND IMMEDIATE' }],
    [
      "ALTER MASKING POLICY gov.email_mask SET BODY -> CASE WHEN CURRENT_ROLE() = 'ADMIN' THEN val ELSE '***' END",
      'ALTER MASKING POLICY',
      { action: 'SET BODY', body: "CASE WHEN CURRENT_ROLE() = 'ADMIN' THEN val ELSE '***' END" },
    ],
    ["ALTER ROW ACCESS POLICY gov.by_region SET COMMENT = 'regional'", 'ALTER ROW ACCESS POLICY', { action: 'SET' }],
    ['ALTER MATERIALIZED VIEW sales.mv CLUSTER BY (region, day)', 'ALTER MATERIALIZED VIEW', { action: 'CLUSTER BY', keys: 'region, day' }],
    ['ALTER VIEW sales.v UNSET SECURE', 'ALTER VIEW', { action: 'UNSET', properties: ['SECURE'] }],
    [
      "ALTER NETWORK POLICY corp ADD ALLOWED_NETWORK_RULE_LIST = 'office_ips'",
      'ALTER NETWORK POLICY',
      { action: 'ADD', list: 'ALLOWED_NETWORK_RULE_LIST', rule: 'office_ips' },
    ],
    ['ALTER PROCEDURE etl.load(VARCHAR, NUMBER(38, 0)) RENAME TO etl.load_v2', 'ALTER PROCEDURE', { args: ['VARCHAR', 'NUMBER(38, 0)'], action: 'RENAME' }],
    [
      'ALTER RESOURCE MONITOR monthly SET CREDIT_QUOTA = 100 FREQUENCY = MONTHLY TRIGGERS ON 80 PERCENT DO NOTIFY ON 100 PERCENT DO SUSPEND',
      'ALTER RESOURCE MONITOR',
      {
        action: 'SET',
        triggers: [
          { threshold: 80, do: 'NOTIFY' },
          { threshold: 100, do: 'SUSPEND' },
        ],
      },
    ],
    ["ALTER ROLE analyst SET COMMENT = 'read only'", 'ALTER ROLE', { action: 'SET' }],
    [
      'ALTER SHARE sales_share ADD ACCOUNTS = partner.a1, partner.a2 SHARE_RESTRICTIONS = FALSE',
      'ALTER SHARE',
      { action: 'ADD ACCOUNTS', accounts: ['partner.a1', 'partner.a2'], properties: [{ name: 'SHARE_RESTRICTIONS', value: false }] },
    ],
    ['ALTER STREAM etl.orders_stream SET APPEND_ONLY = TRUE', 'ALTER STREAM', { action: 'SET' }],
    ["ALTER TAG gov.cost_center ADD ALLOWED_VALUES 'eng', 'ops'", 'ALTER TAG', { action: 'ADD ALLOWED_VALUES', values: ['eng', 'ops'] }],
    ["ALTER IMAGE REPOSITORY apps.images SET COMMENT = 'service images'", 'ALTER IMAGE REPOSITORY', { action: 'SET' }],
    [
      "ALTER SERVICE apps.api FROM @apps.specs SPECIFICATION_FILE = 'api.yaml'",
      'ALTER SERVICE',
      { action: 'FROM STAGE', stage: '@apps.specs', specificationFile: 'api.yaml' },
    ],
    ['ALTER SERVICE apps.api SET MIN_INSTANCES = 1 AUTO_RESUME = FALSE', 'ALTER SERVICE', { action: 'SET' }],
  ];
  it.each(cases)('%s', (sql, type, ast) => {
    const r = parse(sql);
    expect(r.type).toBe(type);
    expect(r.ast).toMatchObject({ statement: 'ALTER', objectType: type.slice('ALTER '.length), ...ast });
  });

  it('table-like objects count among the tables (both sides of a SWAP), as do the columns a row access policy is on', () => {
    expect(parse('ALTER DYNAMIC TABLE a.dt SWAP WITH a.dt_next').tables).toEqual(['a.dt', 'a.dt_next']);
    expect(parse('ALTER MATERIALIZED VIEW a.mv SUSPEND').tables).toEqual(['a.mv']);
    const r = parse('ALTER DYNAMIC TABLE a.dt DROP ROW ACCESS POLICY gov.old, ADD ROW ACCESS POLICY gov.new ON (region)');
    expect(r.ast).toMatchObject({ action: 'DROP ROW ACCESS POLICY, ADD ROW ACCESS POLICY', dropped: 'gov.old', policy: 'gov.new', on: ['region'] });
    expect(r.columns).toEqual(['region']);
    expect(parse('ALTER WAREHOUSE w SUSPEND').tables).toEqual([]);
  });
});

describe('DROP, DESCRIBE, SHOW, BEGIN', () => {
  it('DROP and DESCRIBE name the object (with IF EXISTS, CASCADE | RESTRICT, procedure argument types)', () => {
    expect(parse('DROP DYNAMIC TABLE IF EXISTS sales.daily')).toMatchObject({
      type: 'DROP DYNAMIC TABLE',
      tables: ['sales.daily'],
      ast: { name: 'sales.daily', ifExists: true },
    });
    expect(parse('DROP SEQUENCE ids CASCADE').ast).toMatchObject({ objectType: 'SEQUENCE', option: 'CASCADE' });
    expect(parse('DROP PROCEDURE etl.load(VARCHAR)').ast).toMatchObject({ args: ['VARCHAR'] });
    expect(parse('DROP STORAGE INTEGRATION IF EXISTS s3_int').type).toBe('DROP STORAGE INTEGRATION');
    expect(parse('DESC FILE FORMAT raw.csv_ff')).toMatchObject({ type: 'DESCRIBE FILE FORMAT', tables: [] });
    expect(parse('DESCRIBE DYNAMIC TABLE sales.daily')).toMatchObject({ type: 'DESCRIBE DYNAMIC TABLE', tables: ['sales.daily'] });
    expect(rejection('DROP WAREHOUSE w CASCADE').message).toBe("expected end of statement, found 'CASCADE' at offset 17");
  });

  it('SHOW <objects> with its filters, and IN FAILOVER | REPLICATION GROUP for databases and shares', () => {
    expect(parse('SHOW SHARES IN REPLICATION GROUP dr_group')).toMatchObject({
      type: 'SHOW SHARES',
      ast: { objects: 'SHARES', in: { objectType: 'REPLICATION GROUP', name: 'dr_group' } },
    });
    expect(parse("SHOW TERSE SCHEMAS HISTORY LIKE 'raw%' IN DATABASE analytics STARTS WITH 'R' LIMIT 10 FROM 'RA'").ast).toEqual({
      statement: 'SHOW',
      objects: 'SCHEMAS',
      terse: true,
      history: true,
      like: 'raw%',
      in: { objectType: 'DATABASE', name: 'analytics' },
      startsWith: 'R',
      limit: 10,
      from: 'RA',
    });
    expect(parse("SHOW DYNAMIC TABLES LIKE 'daily%' IN SCHEMA sales").type).toBe('SHOW DYNAMIC TABLES');
    // IN FAILOVER GROUP is documented for SHOW DATABASES, SHARES (and LISTINGS) alone.
    expect(rejection('SHOW SCHEMAS IN FAILOVER GROUP g').message).toBe(
      "expected ACCOUNT, DATABASE, APPLICATION, APPLICATION PACKAGE after IN, found 'FAILOVER' at offset 16",
    );
  });

  it('every SHOW command of the reference, with the filters and scopes its page documents; an unknown one is rejected', () => {
    const cases: [string, string, Record<string, unknown>][] = [
      [
        "SHOW TERSE TABLES HISTORY LIKE 'ord%' IN APPLICATION shop_app",
        'SHOW TABLES',
        { terse: true, history: true, in: { objectType: 'APPLICATION', name: 'shop_app' } },
      ],
      ['SHOW COLUMNS IN VIEW sales.v', 'SHOW COLUMNS', { in: { objectType: 'VIEW', name: 'sales.v' } }],
      ['SHOW COLUMNS IN sales.orders', 'SHOW COLUMNS', { in: { objectType: 'TABLE', name: 'sales.orders' } }],
      ['SHOW TERSE IMPORTED KEYS IN TABLE', 'SHOW IMPORTED KEYS', { terse: true, in: { objectType: 'TABLE' } }],
      ['SHOW EXPORTED KEYS IN SCHEMA sales', 'SHOW EXPORTED KEYS', { in: { objectType: 'SCHEMA', name: 'sales' } }],
      ["SHOW USERS LIKE 'a%' STARTS WITH 'AL' LIMIT 5 FROM 'ALB'", 'SHOW USERS', { like: 'a%', startsWith: 'AL', limit: 5, from: 'ALB' }],
      ["SHOW ROLES LIKE 'x%' IN CLASS SNOWFLAKE.CORE.BUDGET", 'SHOW ROLES', { in: { objectType: 'CLASS', name: 'SNOWFLAKE.CORE.BUDGET' } }],
      ['SHOW ROLES IN SERVICE apps.api', 'SHOW ROLES', { in: { objectType: 'SERVICE', name: 'apps.api' } }],
      ["SHOW DATABASE ROLES LIKE 'r%' IN DATABASE d1 LIMIT 10", 'SHOW DATABASE ROLES', { in: { objectType: 'DATABASE', name: 'd1' }, limit: 10 }],
      ['SHOW JOB SERVICES EXCLUDE JOBS IN COMPUTE POOL p', 'SHOW JOB SERVICES', { excludeJobs: true, in: { objectType: 'COMPUTE POOL', name: 'p' } }],
      ['SHOW SERVICES IN SCHEMA apps LIMIT 5 OF TYPE notebook, ml_job', 'SHOW SERVICES', { limit: 5, ofType: ['notebook', 'ml_job'] }],
      ['SHOW IMAGES IN IMAGE REPOSITORY apps.images', 'SHOW IMAGES', { in: { objectType: 'IMAGE REPOSITORY', name: 'apps.images' } }],
      ['SHOW TASKS IN DATABASE etl ROOT ONLY LIMIT 3', 'SHOW TASKS', { in: { objectType: 'DATABASE', name: 'etl' }, rootOnly: true, limit: 3 }],
      ['SHOW TRANSACTIONS IN ACCOUNT', 'SHOW TRANSACTIONS', { in: { objectType: 'ACCOUNT' } }],
      ['SHOW REPLICATION GROUPS IN ACCOUNT acme.dr', 'SHOW REPLICATION GROUPS', { in: { objectType: 'ACCOUNT', name: 'acme.dr' } }],
      ['SHOW REPLICATION DATABASES WITH PRIMARY acme.prod.sales', 'SHOW REPLICATION DATABASES', { withPrimary: 'acme.prod.sales' }],
      ['SHOW DELEGATED AUTHORIZATIONS BY USER jdoe', 'SHOW DELEGATED AUTHORIZATIONS', { byUser: 'jdoe' }],
      ['SHOW STORAGE INTEGRATIONS', 'SHOW STORAGE INTEGRATIONS', {}],
      ['SHOW VERSIONS IN MODEL ml.churn', 'SHOW VERSIONS', { in: { objectType: 'MODEL', name: 'ml.churn' } }],
      ['SHOW USER PROGRAMMATIC ACCESS TOKENS FOR USER jdoe', 'SHOW USER PROGRAMMATIC ACCESS TOKENS', { forUser: 'jdoe' }],
      ['SHOW OBJECTS OWNED BY APPLICATION shop_app', 'SHOW OBJECTS OWNED BY APPLICATION', { application: 'shop_app' }],
      ['SHOW LISTINGS IN FAILOVER GROUP fg', 'SHOW LISTINGS', { in: { objectType: 'FAILOVER GROUP', name: 'fg' } }],
      ["SHOW WAREHOUSES LIKE 'etl%' WITH PRIVILEGES MODIFY, CREATE SCHEMA", 'SHOW WAREHOUSES', { withPrivileges: ['MODIFY', 'CREATE SCHEMA'] }],
      ['SHOW TERSE ROLES IN CLASS SNOWFLAKE.CORE.BUDGET', 'SHOW ROLES', { terse: true }],
      ['SHOW FUNCTIONS IN MODEL ml.churn', 'SHOW FUNCTIONS', { in: { objectType: 'MODEL', name: 'ml.churn' } }],
      ['SHOW PROCEDURES IN CLASS SNOWFLAKE.ML.FORECAST', 'SHOW PROCEDURES', { in: { objectType: 'CLASS', name: 'SNOWFLAKE.ML.FORECAST' } }],
    ];
    for (const [sql, type, ast] of cases) {
      const r = parse(sql);
      expect(r.type).toBe(type);
      expect(r.ast).toMatchObject({ statement: 'SHOW', ...ast });
      expect(r.tables).toEqual([]);
    }
    expect(rejection('SHOW NONSENSE').message).toMatch(/^expected the objects to show .*found 'NONSENSE' at offset 5$/);
    expect(rejection('SHOW TERSE WAREHOUSES').message).toBe('TERSE is not documented for SHOW WAREHOUSES at offset 5');
    expect(rejection('SHOW IMAGES').message).toMatch(/^expected IN, found end of statement/);
    expect(rejection('SHOW WAREHOUSES IN ACCOUNT').message).toMatch(/^expected LIKE or end of statement, found 'IN'/);
    expect(rejection("SHOW NETWORK POLICIES LIKE 'x'").message).toMatch(/^expected end of statement, found 'LIKE'/);
    expect(rejection('SHOW LOCKS IN DATABASE d').message).toMatch(/^expected ACCOUNT after IN, found 'DATABASE'/);
    expect(rejection('SHOW DYNAMIC TABLES IN APPLICATION app').message).toMatch(/^expected STARTS WITH, LIMIT or end of statement, found 'app'/);
  });

  it('SHOW GRANTS: ON ACCOUNT | ON <object>, TO and OF a grantee, FUTURE GRANTS IN | TO, LIMIT', () => {
    expect(parse('SHOW GRANTS').ast).toEqual({ statement: 'SHOW', objects: 'GRANTS' });
    expect(parse('SHOW GRANTS ON ACCOUNT LIMIT 10').ast).toMatchObject({ on: { objectType: 'ACCOUNT' }, limit: 10 });
    expect(parse('SHOW GRANTS ON MATERIALIZED VIEW sales.mv').ast.on).toEqual({ objectType: 'MATERIALIZED VIEW', name: 'sales.mv' });
    expect(parse('SHOW GRANTS ON PROCEDURE etl.load(VARCHAR, NUMBER)').ast.on).toEqual({
      objectType: 'PROCEDURE',
      name: 'etl.load',
      args: '(VARCHAR, NUMBER)',
    });
    expect(parse('SHOW GRANTS TO SHARE s IN APPLICATION PACKAGE pkg').ast.to).toEqual({ objectType: 'SHARE', name: 's', applicationPackage: 'pkg' });
    expect(parse('SHOW GRANTS TO SERVICE ROLE apps.api!admin').ast.to).toEqual({ objectType: 'SERVICE ROLE', name: 'apps.api!admin' });
    expect(parse('SHOW GRANTS TO SNOWFLAKE.CORE.BUDGET ROLE budgets.b1!admin').ast.to).toEqual({
      objectType: 'INSTANCE ROLE',
      class: 'SNOWFLAKE.CORE.BUDGET',
      name: 'budgets.b1!admin',
    });
    expect(parse('SHOW GRANTS OF ROLE analyst').ast.of).toEqual({ objectType: 'ROLE', name: 'analyst' });
    expect(parse('SHOW FUTURE GRANTS IN DATABASE sales LIMIT 5').type).toBe('SHOW FUTURE GRANTS');
    expect(parse('SHOW FUTURE GRANTS TO DATABASE ROLE sales.reader').ast.to).toEqual({ objectType: 'DATABASE ROLE', name: 'sales.reader' });
    expect(rejection('SHOW GRANTS ON NONSENSE x').message).toMatch(/^expected ACCOUNT or an object type after SHOW GRANTS ON, found 'NONSENSE'/);
    expect(rejection('SHOW GRANTS OF USER u').message).toMatch(/^expected APPLICATION ROLE, SERVICE ROLE, DATABASE ROLE, ROLE, SHARE after SHOW GRANTS OF/);
    expect(rejection('SHOW FUTURE GRANTS TO DATABASE ROLE r LIMIT 5').message).toMatch(/^expected end of statement, found 'LIMIT'/);
  });

  it('SHOW PARAMETERS [ LIKE ] [ IN | FOR { SESSION | ACCOUNT | USER | WAREHOUSE | DATABASE | SCHEMA | TASK [ name ] | TABLE [ name ] } ]', () => {
    expect(parse("SHOW PARAMETERS LIKE 'TIME%' IN ACCOUNT").ast).toEqual({
      statement: 'SHOW',
      objects: 'PARAMETERS',
      like: 'TIME%',
      in: { objectType: 'ACCOUNT' },
    });
    expect(parse('SHOW PARAMETERS FOR TABLE sales.orders').ast.for).toEqual({ objectType: 'TABLE', name: 'sales.orders' });
    expect(parse('SHOW PARAMETERS IN WAREHOUSE').ast.in).toEqual({ objectType: 'WAREHOUSE' });
    expect(rejection('SHOW PARAMETERS IN SESSION s').message).toMatch(/^expected end of statement, found 's'/);
    expect(rejection('SHOW PARAMETERS IN STAGE s').message).toMatch(/^expected SESSION, ACCOUNT, USER, WAREHOUSE, DATABASE, SCHEMA, TASK or TABLE after IN/);
  });

  it('SHOW … ->> <statement>: each statement after the pipe operator goes to the chain, the type stays the SHOW', () => {
    const r = parse('SHOW WAREHOUSES ->> SELECT * FROM audit.wh_log ->> SELECT 1');
    expect(r.type).toBe('SHOW WAREHOUSES');
    expect(r.ast.pipeline.map((s: any) => s.type)).toEqual(['SELECT', 'SELECT']);
    expect(r.tables).toEqual(['audit.wh_log']);
    // The chain's parsers do not read a result reference ($1) as a table source, so such a pipeline is rejected where it stands.
    const f = rejection('SHOW WAREHOUSES ->> SELECT "name" FROM $1');
    expect(f.message).toBe("no Snowflake parser accepts the statement after '->>' at offset 20");
    expect(rejection('SHOW WAREHOUSES ->>').message).toMatch(/^expected a statement after '->>'/);
  });

  it('BEGIN [ WORK | TRANSACTION ] [ NAME t ] and START TRANSACTION are transactions; a scripting block is not', () => {
    for (const sql of ['BEGIN', 'BEGIN WORK', 'BEGIN TRANSACTION NAME nightly_load', 'START TRANSACTION NAME t1'])
      expect(parse(sql)).toMatchObject({ type: 'BEGIN TRANSACTION', tables: [] });
    expect(parse('BEGIN NAME t1').ast).toEqual({ statement: 'BEGIN', name: 't1' });
    expect(parse('BEGIN SELECT 1; END').type).toBe('BLOCK');
    expect(rejection('BEGIN TRANSACTION SELECT').message).toBe("expected NAME <transaction name> or end of statement, found 'SELECT' at offset 18");
  });
});

describe('malformed statements are rejected with what was expected and where', () => {
  const cases: [string, string, RegExp, number][] = [
    ['an unknown property', "CREATE FILE FORMAT ff TYPE = CSV FIELD_SEPARATOR = ','", /^unknown FILE FORMAT property FIELD_SEPARATOR at offset 33$/, 33],
    ['an unknown session parameter of a task', "CREATE TASK t TIMEZONEX = 'UTC' AS SELECT 1", /^unknown TASK property TIMEZONEX/, 14],
    ['an unknown ALTER … SET property', 'ALTER PIPE p SET AUTO_INGEST = TRUE', /^unknown PIPE property AUTO_INGEST/, 17],
    ['a missing =', 'CREATE WAREHOUSE w WAREHOUSE_SIZE XSMALL', /^expected '=' after WAREHOUSE_SIZE, found 'XSMALL'/, 34],
    ['a value of the wrong shape', "CREATE WAREHOUSE w AUTO_RESUME = 'yes'", /^expected TRUE or FALSE for AUTO_RESUME, found string 'yes'/, 33],
    [
      'a keyword value outside the documented ones',
      'ALTER WAREHOUSE w SET SCALING_POLICY = FAST',
      /^expected STANDARD \| ECONOMY for SCALING_POLICY, found 'FAST'/,
      39,
    ],
    ['an unterminated parenthesis', "CREATE STAGE s ENCRYPTION = (TYPE = 'NONE'", /^expected '\)' to close the ENCRYPTION options, found end of statement/, 42],
    ['an empty option list', 'CREATE STAGE s ENCRYPTION = ()', /^expected a ENCRYPTION option, found '\)'/, 29],
    ['a missing statement after AS', 'CREATE TASK t WAREHOUSE = w AS', /^expected the task statement after AS, found end of statement/, 30],
    ['an unterminated string', "CREATE FILE FORMAT ff COMMENT = 'no end", /unterminated/, 32],
    [
      'a reserved word where a name belongs (no warehouse named WITH)',
      'CREATE WAREHOUSE WITH WAREHOUSE_SIZE = XSMALL',
      /^expected the WAREHOUSE name, found 'WITH'/,
      17,
    ],
    ['a reserved word after a dot', 'DROP STAGE raw.from', /^expected a name after '\.', found 'from'/, 15],
    ['WITH and no property', 'CREATE WAREHOUSE w WITH', /^expected a WAREHOUSE property after WITH, found end of statement/, 23],
    ['argument types that are not data types', 'SHOW GRANTS ON FUNCTION f(INT, garbage garbage)', /^expected an argument data type, found 'garbage'/, 31],
    ['SHOW PARAMETERS IN TABLE without the table', 'SHOW PARAMETERS IN TABLE', /^expected a table or view name after IN TABLE/, 24],
    ['a missing name', 'ALTER DYNAMIC TABLE', /^expected the DYNAMIC TABLE name, found end of statement at offset 19$/, 19],
    ['garbage after a complete statement', 'ALTER TASK t RESUME NOW', /^expected end of statement, found 'NOW'/, 20],
    ['a trailing semicolon (the splitter strips it)', 'DESCRIBE PIPE p;', /^expected end of statement, found ';'/, 15],
    ['a property given twice', 'CREATE WAREHOUSE w AUTO_SUSPEND = 60 AUTO_SUSPEND = 120', /^AUTO_SUSPEND is given twice/, 37],
    ['a trailing comma', "ALTER TASK t SET COMMENT = 'x',", /^expected a TASK property after ','/, 31],
    [
      'an unknown ALTER action',
      'ALTER TASK t EXPLODE',
      /^expected an ALTER TASK action \(RESUME, SUSPEND, REMOVE WHEN, ADD AFTER, REMOVE AFTER, MODIFY AS, MODIFY WHEN, SET, UNSET\), found 'EXPLODE'/,
      13,
    ],
    ['a property that cannot be unset', 'ALTER STORAGE INTEGRATION i UNSET STORAGE_ALLOWED_LOCATIONS', /^STORAGE_ALLOWED_LOCATIONS cannot be unset/, 34],
    ['IF EXISTS where it is not documented', 'ALTER MATERIALIZED VIEW IF EXISTS mv SUSPEND', /^expected a name \(IF EXISTS is not documented here\)/, 24],
    ['ALTER ACCOUNT <name> with a SET', "ALTER ACCOUNT acme SET TIMEZONE = 'UTC'", /^expected RENAME TO or DROP OLD URL after ALTER ACCOUNT <name>/, 19],
    ['OR REPLACE with IF NOT EXISTS', 'CREATE OR REPLACE STAGE IF NOT EXISTS s', /^OR REPLACE and IF NOT EXISTS cannot both be given/, 24],
    ['a modifier the object does not take', 'CREATE TRANSIENT WAREHOUSE w', /^TRANSIENT does not apply to CREATE WAREHOUSE/, 7],
    [
      'an object kind the grammar does not read',
      'CREATE TABLE t (a INT)',
      /^expected an object kind after CREATE \(FILE FORMAT, STAGE, PIPE, TASK, WAREHOUSE, DYNAMIC TABLE, DYNAMIC ICEBERG TABLE, STREAM, MASKING POLICY, ROW ACCESS POLICY, STORAGE INTEGRATION, DATABASE ROLE\), found 'TABLE'/,
      7,
    ],
    ['a statement it does not read', 'SELECT 1', /^expected CREATE, ALTER, DROP, DESCRIBE, SHOW, BEGIN or DECLARE, found 'SELECT'/, 0],
    ['a WHEN condition no parser reads', 'CREATE TASK t WAREHOUSE = w WHEN 1 + AS SELECT 1', /^no Snowflake parser accepts a WHEN condition '1 \+'/, 33],
    [
      'a data type nested past 100 levels (the job goes on: the statement is rejected)',
      `CREATE DYNAMIC TABLE d (c ${'ARRAY('.repeat(5000)}INT${')'.repeat(5000)}) TARGET_LAG = DOWNSTREAM WAREHOUSE = w AS SELECT 1`,
      /^a data type nested deeper than 100 levels/,
      26 + 101 * 'ARRAY('.length,
    ],
    [
      'an inner AS statement no parser accepts',
      'CREATE PIPE p AS COPY INTO t FROM @s PATTERN =',
      /^no Snowflake parser accepts the COPY INTO statement after AS/,
      17,
    ],
  ];
  it.each(cases)('%s', (_what, sql, message, offset) => {
    const f = rejection(sql);
    expect(f.message).toMatch(message);
    expect(f.offset).toBe(offset);
  });
});

describe('end to end: a Snowflake script through parseSql', () => {
  it('object DDL the other parsers reject is parsed by the object grammar, with its type, tables and the parser of its embedded statement', async () => {
    const sql = [
      "CREATE OR REPLACE FILE FORMAT raw.tsv TYPE = CSV FIELD_DELIMITER = '\\t' SKIP_HEADER = 1;",
      'CREATE PIPE raw.orders_pipe AUTO_INGEST = TRUE AS COPY INTO raw.orders FROM @raw.landing/orders/;',
      "CREATE TASK etl.load WAREHOUSE = etl_wh SCHEDULE = '60 MINUTE' AS INSERT INTO etl.orders SELECT id FROM etl.orders_stream;",
      'CREATE DYNAMIC TABLE sales.daily (region VARCHAR WITH MASKING POLICY gov.mask, total NUMBER) TARGET_LAG = DOWNSTREAM WAREHOUSE = transform_wh',
      '  AS SELECT region, SUM(amount) FROM sales.orders GROUP BY region;',
      'ALTER WAREHOUSE etl_wh SET AUTO_SUSPEND = 120 AUTO_RESUME = TRUE;',
      'SHOW DATABASES IN FAILOVER GROUP dr;',
      'BEGIN NAME nightly;',
      'SELECT region FROM sales.daily;',
      'CREATE WAREHOUSE w WAREHOUSE_SIZE = XSMALL SPEED = 11;',
    ].join('\n');
    const { content, units } = await statementsOf(sql, 'Snowflake');
    expect(units).toBe(9);
    const grammar = 'docparse Snowflake object grammar';
    const view = (s: any) => [s.type, s.parseStatus, s.parser, s.tables];
    expect(content.statements.map(view)).toEqual([
      ['CREATE FILE FORMAT', 'parsed', grammar, []],
      ['CREATE PIPE', 'parsed', grammar, ['raw.orders']],
      ['CREATE TASK', 'parsed', grammar, ['etl.orders', 'etl.orders_stream']],
      ['CREATE DYNAMIC TABLE', 'parsed', grammar, ['sales.daily', 'sales.orders']],
      ['ALTER WAREHOUSE', 'parsed', grammar, []],
      ['SHOW DATABASES', 'parsed', grammar, []],
      ['BEGIN TRANSACTION', 'parsed', grammar, []],
      ['SELECT', 'parsed', expect.stringMatching(/^sqlparser-rs /), ['sales.daily']],
      [expect.any(String), 'error', null, []],
    ]);
    // The rejected statement shows the error of the parser that read furthest: this grammar's.
    expect(content.statements[8].parseError.message).toMatch(/unknown WAREHOUSE property SPEED/);
    const [fileFormat, pipe, , dynamicTable] = content.statements;
    expect(fileFormat.ast.properties).toEqual([
      { name: 'TYPE', value: 'CSV' },
      { name: 'FIELD_DELIMITER', value: '\t' },
      { name: 'SKIP_HEADER', value: 1 },
    ]);
    // The COPY INTO a pipe runs is read by the chain's own parsers, and says which.
    expect(pipe.ast.body).toMatchObject({ type: 'COPY INTO', parser: expect.stringMatching(/^sqlparser-rs /) });
    expect(dynamicTable.columns).toEqual(['region', 'total', 'amount']);
    expect(dynamicTable.ast.columns[0]).toEqual({ name: 'region', type: 'VARCHAR', maskingPolicy: 'gov.mask' });
  });
});
