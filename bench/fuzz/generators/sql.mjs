// Generated SQL seeds, one per dialect family, with the constructs each splitter must not
// cut: dollar bodies, GO batches, scripting blocks, DELIMITER, PL/SQL blocks ended by "/".

const PG = `-- PostgreSQL
CREATE TABLE items (id serial PRIMARY KEY, name text NOT NULL, tags text[] DEFAULT '{}', meta jsonb);
INSERT INTO items (name, meta) VALUES ('a;b', '{"k": "v; w"}'), ($q$it's$q$, NULL);
CREATE FUNCTION touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.name := upper(NEW.name); -- a ; inside
  RETURN NEW;
END;
$$;
COPY items (id, name) FROM stdin;
1\tone
2\ttwo
\\.
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 5) SELECT * FROM t;
/* block ; comment */ SELECT i.name, count(*) FROM items i JOIN items j ON j.id = i.id GROUP BY 1;
`;

const TSQL = `-- T-SQL
CREATE TABLE dbo.Orders (Id INT IDENTITY(1,1) PRIMARY KEY, Total DECIMAL(10,2), Note NVARCHAR(100))
GO
INSERT INTO dbo.Orders (Total, Note) VALUES (10.5, N'go; not a batch')
INSERT INTO dbo.Orders (Total, Note) VALUES (3, 'GO')
GO 3
CREATE PROCEDURE dbo.Top1 AS
BEGIN
  SELECT TOP 1 * FROM dbo.Orders ORDER BY Total DESC;
END
GO
SELECT [Id], [Total] FROM dbo.Orders WITH (NOLOCK) WHERE Note LIKE '%;%'
`;

const SNOWFLAKE = `-- Snowflake
CREATE OR REPLACE TABLE sales (id NUMBER, amount NUMBER(10,2), v VARIANT);
CREATE OR REPLACE PROCEDURE p() RETURNS STRING LANGUAGE SQL AS $$
BEGIN
  LET x := 1;
  RETURN 'done;';
END;
$$;
EXECUTE IMMEDIATE $$
DECLARE c INTEGER DEFAULT 0;
BEGIN
  FOR i IN 1 TO 3 DO c := c + i; END FOR;
  RETURN c;
END;
$$;
SELECT v:a.b::string FROM sales AT(OFFSET => -60) WHERE id IN (1, 2);
`;

const MYSQL = `-- MySQL
CREATE TABLE \`t\` (\`id\` INT AUTO_INCREMENT PRIMARY KEY, \`s\` VARCHAR(20)) ENGINE=InnoDB;
INSERT INTO t (s) VALUES ('a\\';b'), ("c;d");
DELIMITER //
CREATE PROCEDURE p()
BEGIN
  SELECT * FROM t; SELECT 1;
END //
DELIMITER ;
# hash comment ;
SELECT * FROM t WHERE s REGEXP '^[a-z]+;$';
`;

const BIGQUERY = `-- BigQuery
CREATE TEMP FUNCTION f(x INT64) AS (x * 2);
SELECT f(n) AS d FROM UNNEST([1, 2, 3]) AS n;
SELECT * FROM \`proj.dataset.table\` WHERE s = r"a;b" AND t = '''multi
line; string''';
DECLARE x INT64 DEFAULT 0;
BEGIN
  SET x = x + 1;
END;
`;

const SQLITE = `-- SQLite
CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT);
CREATE TRIGGER tr AFTER INSERT ON t BEGIN
  UPDATE t SET b = 'x;' WHERE a = new.a;
END;
INSERT INTO t VALUES (1, 'one'), (2, 'two');
PRAGMA foreign_keys = ON;
SELECT a, b FROM t WHERE b GLOB '*;*';
`;

const ORACLE = `-- Oracle
CREATE TABLE emp (id NUMBER PRIMARY KEY, name VARCHAR2(40));
INSERT INTO emp VALUES (1, q'[it's; fine]');
CREATE OR REPLACE PROCEDURE raise_all IS
BEGIN
  UPDATE emp SET name = name || ';';
  COMMIT;
END;
/
BEGIN
  raise_all;
END;
/
SELECT * FROM emp WHERE ROWNUM <= 10;
`;

export function sqlSeeds() {
  return [
    { name: 'gen_pg.sql', bytes: Buffer.from(PG), dialect: 'PostgreSql' },
    { name: 'gen_tsql.sql', bytes: Buffer.from(TSQL), dialect: 'MsSql' },
    { name: 'gen_snowflake.sql', bytes: Buffer.from(SNOWFLAKE), dialect: 'Snowflake' },
    { name: 'gen_mysql.sql', bytes: Buffer.from(MYSQL), dialect: 'MySql' },
    { name: 'gen_bigquery.sql', bytes: Buffer.from(BIGQUERY), dialect: 'BigQuery' },
    { name: 'gen_sqlite.sql', bytes: Buffer.from(SQLITE), dialect: 'Sqlite' },
    { name: 'gen_oracle.sql', bytes: Buffer.from(ORACLE), dialect: 'Oracle' },
  ];
}
