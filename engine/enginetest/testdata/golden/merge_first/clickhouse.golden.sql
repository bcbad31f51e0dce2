-- partition 2026-11-28: [2026-11-28 00:00:00, 2026-11-29 00:00:00) UTC; a merge may write any row of sales.orders;

-- lock: sales.orders (whole table), waiting up to 10m;

SELECT name FROM system.columns WHERE table = $1 AND database = $2;

SELECT 1 FROM system.tables WHERE name = $1 AND database = $2;

DROP TABLE IF EXISTS "sales"."orders__idem_build";

DROP TEMPORARY TABLE IF EXISTS "idem_stage";

CREATE TEMPORARY TABLE "idem_stage" ("order_id" Nullable(Int64), "status" Nullable(String), "updated_at" Nullable(DateTime64(6)), "is_deleted" Nullable(Bool)) ENGINE = MergeTree ORDER BY tuple();

SELECT count(*) FROM system.databases WHERE name = $1;

-- load $DIR/in/2026-11-28.csv into "idem_stage" via RowBinary spool files of up to 262144 of the reader's typed rows, each read by INSERT … SELECT FROM file();

INSERT INTO "idem_stage" ("order_id", "status", "updated_at", "is_deleted") SELECT * FROM file(<a spool file of the rows, RowBinary>, 'RowBinary', 'c1 Nullable(Int64), c2 Nullable(String), c3 Nullable(DateTime64(6)), c4 Nullable(Bool)') SETTINGS max_partitions_per_insert_block = 0 -- for each 262144 rows;

SELECT * FROM "idem_stage" LIMIT 0;

SELECT count(*) FROM "idem_stage" WHERE "order_id" IS NULL;

SELECT uniqExact(tuple("order_id")) FROM "idem_stage";

DROP TABLE IF EXISTS "sales"."orders__idem_build";

CREATE DATABASE IF NOT EXISTS "sales";

CREATE TABLE IF NOT EXISTS "sales"."orders__idem_build" ENGINE = MergeTree ORDER BY tuple() SETTINGS allow_nullable_key = 1 EMPTY AS SELECT * FROM "idem_stage";

SELECT * FROM "sales"."orders__idem_build" LIMIT 0;

SELECT 1 FROM system.tables WHERE name = $1 AND database = $2;

CREATE TABLE IF NOT EXISTS "sales"."orders__idem_deleted" AS "sales"."orders__idem_build" ENGINE = MergeTree ORDER BY tuple() SETTINGS allow_nullable_key = 1;

SELECT * FROM "sales"."orders__idem_deleted" LIMIT 0;

SELECT CAST("order_id" AS VARCHAR) FROM "sales"."orders__idem_build" AS r LIMIT 1;

SELECT CAST("order_id" AS VARCHAR) FROM "sales"."orders__idem_deleted" AS r LIMIT 1;

SELECT count(*) FROM "idem_stage" WHERE coalesce("is_deleted", false);

SELECT count(*), toString(sum(cityHash64(tuple("order_id", "status", "updated_at", "is_deleted")))) FROM "idem_stage" WHERE NOT (coalesce("is_deleted", false));

CREATE TABLE IF NOT EXISTS "idem_runs" (
  "job" String,
  "partition" String,
  "run_id" String,
  "seq" Int64,
  "input_fingerprint" String,
  "definition_hash" String,
  "strategy" String,
  "rows_in" Int64,
  "rows_deduped" Int64,
  "rows_out_of_window" Int64,
  "inserted" Int64,
  "updated" Int64,
  "deleted" Int64,
  "deleted_absent" Int64 DEFAULT 0,
  "skipped_older" Int64,
  "row_count" Int64,
  "checksum" String,
  "partition_closed" Bool,
  "started_at" DateTime64(6, 'UTC'),
  "finished_at" DateTime64(6, 'UTC'),
  "idem_version" String,
  "target_table" Nullable(String),
  "table_rows" Int64 DEFAULT 0,
  "kept_on_tie" Int64 DEFAULT 0,
  "input_objects" Nullable(String),
  "job_seq" Int64 DEFAULT 0
) ENGINE = ReplacingMergeTree ORDER BY ("job", "partition", "run_id");

ALTER TABLE "idem_runs" ADD COLUMN IF NOT EXISTS "target_table" Nullable(String);

ALTER TABLE "idem_runs" ADD COLUMN IF NOT EXISTS "deleted_absent" Int64 DEFAULT 0;

ALTER TABLE "idem_runs" ADD COLUMN IF NOT EXISTS "table_rows" Int64 DEFAULT 0;

ALTER TABLE "idem_runs" ADD COLUMN IF NOT EXISTS "kept_on_tie" Int64 DEFAULT 0;

ALTER TABLE "idem_runs" ADD COLUMN IF NOT EXISTS "input_objects" Nullable(String);

ALTER TABLE "idem_runs" ADD COLUMN IF NOT EXISTS "job_seq" Int64 DEFAULT 0;

BEGIN;

INSERT INTO "sales"."orders__idem_deleted" ("order_id", "status", "updated_at", "is_deleted") SELECT "order_id", "status", "updated_at", "is_deleted" FROM "idem_stage" WHERE coalesce("is_deleted", false);

INSERT INTO "sales"."orders__idem_build" ("order_id", "status", "updated_at", "is_deleted") SELECT "order_id", "status", "updated_at", "is_deleted" FROM "idem_stage" WHERE NOT (coalesce("is_deleted", false));

RENAME TABLE "sales"."orders__idem_build" TO "sales"."orders";

SELECT coalesce(max("seq"), 0) + 1, count(*) FILTER (WHERE "run_id" = $3) FROM "idem_runs" WHERE "job" = $1 AND "partition" = $2;

SELECT coalesce(max("job_seq"), 0) + 1 FROM "idem_runs" WHERE "job" = $1;

INSERT INTO "idem_runs" ("job", "partition", "run_id", "seq", "input_fingerprint", "definition_hash", "strategy", "rows_in", "rows_deduped", "rows_out_of_window", "inserted", "updated", "deleted", "deleted_absent", "skipped_older", "row_count", "checksum", "partition_closed", "started_at", "finished_at", "idem_version", "target_table", "table_rows", "kept_on_tie", "input_objects", "job_seq") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26);

COMMIT;

DROP TABLE IF EXISTS "idem_stage";

DROP TABLE IF EXISTS "idem_merge_plan";
