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

CREATE OR REPLACE TABLE "default"."idem_merge_plan" ENGINE = Memory AS SELECT s."order_id" AS "order_id", s."status" AS "status", s."updated_at" AS "updated_at", s."is_deleted" AS "is_deleted", CASE
  WHEN t."order_id" IS NOT NULL THEN CASE WHEN (s."updated_at" > t."updated_at" OR (s."updated_at" IS NOT NULL AND t."updated_at" IS NULL) OR (s."updated_at" IS NOT DISTINCT FROM t."updated_at" AND (coalesce(s."is_deleted", false) AND NOT coalesce(t."is_deleted", false) OR (coalesce(s."is_deleted", false) = coalesce(t."is_deleted", false) AND (s."status" < t."status" OR (s."status" IS NOT NULL AND t."status" IS NULL) OR (s."status" IS NOT DISTINCT FROM t."status" AND (s."is_deleted" < t."is_deleted" OR (s."is_deleted" IS NOT NULL AND t."is_deleted" IS NULL)))))))) THEN CASE WHEN coalesce(s."is_deleted", false) THEN 'delete' ELSE 'update' END ELSE CASE WHEN (s."updated_at" IS NOT DISTINCT FROM t."updated_at" AND coalesce(s."is_deleted", false) = coalesce(t."is_deleted", false) AND NOT (s."status" IS NOT DISTINCT FROM t."status" AND s."is_deleted" IS NOT DISTINCT FROM t."is_deleted")) THEN 'tie' ELSE 'skip' END END
  WHEN x."order_id" IS NOT NULL THEN CASE WHEN (s."updated_at" > x."updated_at" OR (s."updated_at" IS NOT NULL AND x."updated_at" IS NULL) OR (s."updated_at" IS NOT DISTINCT FROM x."updated_at" AND (coalesce(s."is_deleted", false) AND NOT coalesce(x."is_deleted", false) OR (coalesce(s."is_deleted", false) = coalesce(x."is_deleted", false) AND (s."status" < x."status" OR (s."status" IS NOT NULL AND x."status" IS NULL) OR (s."status" IS NOT DISTINCT FROM x."status" AND (s."is_deleted" < x."is_deleted" OR (s."is_deleted" IS NOT NULL AND x."is_deleted" IS NULL)))))))) THEN CASE WHEN coalesce(s."is_deleted", false) THEN 'delete_absent' ELSE 'reinsert' END ELSE CASE WHEN (s."updated_at" IS NOT DISTINCT FROM x."updated_at" AND coalesce(s."is_deleted", false) = coalesce(x."is_deleted", false) AND NOT (s."status" IS NOT DISTINCT FROM x."status" AND s."is_deleted" IS NOT DISTINCT FROM x."is_deleted")) THEN 'tie' ELSE 'skip' END END
  ELSE CASE WHEN coalesce(s."is_deleted", false) THEN 'delete_absent' ELSE 'insert' END END AS "_idem_action"
FROM "idem_stage" AS s LEFT JOIN (SELECT "order_id", "status", "updated_at", "is_deleted" FROM "sales"."orders__idem_build" WHERE ("order_id") IN (SELECT "order_id" FROM "idem_stage")) AS t ON t."order_id" = s."order_id"
  LEFT JOIN (SELECT "order_id", "status", "updated_at", "is_deleted" FROM "sales"."orders__idem_deleted" WHERE ("order_id") IN (SELECT "order_id" FROM "idem_stage")) AS x ON x."order_id" = s."order_id";

SELECT "_idem_action", count(*) FROM "idem_merge_plan" GROUP BY "_idem_action";

SELECT count(*), toString(sum(cityHash64(tuple("order_id", "status", "updated_at", "is_deleted")))) FROM "idem_merge_plan" WHERE "_idem_action" IN ('insert', 'reinsert', 'update');

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
  "input_objects" Nullable(String)
) ENGINE = ReplacingMergeTree ORDER BY ("job", "partition", "run_id");

ALTER TABLE "idem_runs" ADD COLUMN IF NOT EXISTS "target_table" Nullable(String);

ALTER TABLE "idem_runs" ADD COLUMN IF NOT EXISTS "deleted_absent" Int64 DEFAULT 0;

ALTER TABLE "idem_runs" ADD COLUMN IF NOT EXISTS "table_rows" Int64 DEFAULT 0;

ALTER TABLE "idem_runs" ADD COLUMN IF NOT EXISTS "kept_on_tie" Int64 DEFAULT 0;

ALTER TABLE "idem_runs" ADD COLUMN IF NOT EXISTS "input_objects" Nullable(String);

BEGIN;

DELETE FROM "sales"."orders__idem_deleted" WHERE ("order_id") IN (SELECT "order_id" FROM "default"."idem_merge_plan" WHERE "_idem_action" IN ('delete', 'delete_absent', 'reinsert'));

INSERT INTO "sales"."orders__idem_deleted" ("order_id", "status", "updated_at", "is_deleted") SELECT "order_id", "status", "updated_at", "is_deleted" FROM "idem_merge_plan" WHERE "_idem_action" IN ('delete', 'delete_absent');

INSERT INTO "sales"."orders__idem_build" ("order_id", "status", "updated_at", "is_deleted") SELECT "order_id", "status", "updated_at", "is_deleted" FROM "idem_merge_plan" WHERE "_idem_action" IN ('insert', 'reinsert', 'update');

SELECT count(*) FROM "sales"."orders__idem_build";

RENAME TABLE "sales"."orders__idem_build" TO "sales"."orders";

SELECT coalesce(max("seq"), 0) + 1, count(*) FILTER (WHERE "run_id" = $3) FROM "idem_runs" WHERE "job" = $1 AND "partition" = $2;

INSERT INTO "idem_runs" ("job", "partition", "run_id", "seq", "input_fingerprint", "definition_hash", "strategy", "rows_in", "rows_deduped", "rows_out_of_window", "inserted", "updated", "deleted", "deleted_absent", "skipped_older", "row_count", "checksum", "partition_closed", "started_at", "finished_at", "idem_version", "target_table", "table_rows", "kept_on_tie", "input_objects") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25);

COMMIT;

DROP TABLE IF EXISTS "idem_stage";

DROP TABLE IF EXISTS "idem_merge_plan";
