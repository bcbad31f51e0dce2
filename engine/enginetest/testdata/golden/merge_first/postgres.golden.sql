-- partition 2026-11-28: [2026-11-28 00:00:00, 2026-11-29 00:00:00) UTC; a merge may write any row of sales.orders;

BEGIN;

-- lock: sales.orders (whole table), waiting up to 10m: pg_advisory_xact_lock(-8467870317952494925) (the table's key, exclusive);

SELECT column_name FROM information_schema.columns WHERE table_catalog = current_database() AND table_schema = $1 AND table_name = $2;

SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = $1 AND tablename = $2;

CREATE TEMP TABLE "idem_stage" ("order_id" BIGINT, "status" TEXT, "updated_at" TIMESTAMP, "is_deleted" BOOLEAN);

SELECT pg_advisory_xact_lock(-4284044477251941855);

SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = $1 AND tablename = $2;

SELECT pg_advisory_xact_lock(-4284044477251941855);

DO $idem$ BEGIN
CREATE SCHEMA IF NOT EXISTS "sales";
EXCEPTION WHEN unique_violation OR duplicate_table OR duplicate_schema THEN NULL;
END $idem$;

DO $idem$ BEGIN
CREATE TABLE IF NOT EXISTS "sales"."orders" AS SELECT * FROM "idem_stage" WITH NO DATA;
EXCEPTION WHEN unique_violation OR duplicate_table OR duplicate_schema THEN NULL;
END $idem$;

-- load $DIR/in/2026-11-28.csv into "sales"."orders" via COPY FROM STDIN (binary), straight into the new table;

COPY "sales"."orders" ("order_id", "status", "updated_at", "is_deleted") FROM STDIN (FORMAT binary);

SELECT * FROM "idem_stage" LIMIT 0;

SELECT count(*) FROM "sales"."orders" WHERE "order_id" IS NULL;

SELECT count(DISTINCT "order_id") + CASE WHEN bool_or("order_id" IS NULL) THEN 1 ELSE 0 END FROM "sales"."orders";

SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = $1 AND tablename = $2;

DO $idem$ BEGIN
CREATE UNIQUE INDEX IF NOT EXISTS "orders__idem_key" ON "sales"."orders" ("order_id");
EXCEPTION WHEN unique_violation OR duplicate_table OR duplicate_schema THEN NULL;
END $idem$;

SELECT * FROM "sales"."orders" LIMIT 0;

SELECT pg_advisory_xact_lock(3296780288592768586);

CREATE TABLE IF NOT EXISTS "sales"."orders__idem_deleted" (LIKE "sales"."orders", PRIMARY KEY ("order_id"));

SELECT * FROM "sales"."orders__idem_deleted" LIMIT 0;

SELECT count(*) FROM "sales"."orders" WHERE coalesce("is_deleted", false);

SELECT count(*), CAST(coalesce(sum(hash_record_extended(ROW("order_id", "status", "updated_at", "is_deleted"), 0)), 0) AS TEXT) FROM "sales"."orders" WHERE NOT (coalesce("is_deleted", false));

INSERT INTO "sales"."orders__idem_deleted" ("order_id", "status", "updated_at", "is_deleted") SELECT "order_id", "status", "updated_at", "is_deleted" FROM "sales"."orders" WHERE coalesce("is_deleted", false);

DELETE FROM "sales"."orders" WHERE coalesce("is_deleted", false);

SELECT count(*) FROM "sales"."orders";

DO $idem$ BEGIN
PERFORM pg_advisory_xact_lock(1133864918205718213);
CREATE TABLE IF NOT EXISTS "public"."idem_runs" (
  "job" TEXT NOT NULL,
  "partition" TEXT NOT NULL,
  "run_id" TEXT NOT NULL,
  "seq" BIGINT NOT NULL,
  "input_fingerprint" TEXT NOT NULL,
  "definition_hash" TEXT NOT NULL,
  "strategy" TEXT NOT NULL,
  "rows_in" BIGINT NOT NULL,
  "rows_deduped" BIGINT NOT NULL,
  "rows_out_of_window" BIGINT NOT NULL,
  "inserted" BIGINT NOT NULL,
  "updated" BIGINT NOT NULL,
  "deleted" BIGINT NOT NULL,
  "deleted_absent" BIGINT NOT NULL DEFAULT 0,
  "skipped_older" BIGINT NOT NULL,
  "row_count" BIGINT NOT NULL,
  "checksum" TEXT NOT NULL,
  "partition_closed" BOOLEAN NOT NULL,
  "started_at" TIMESTAMPTZ NOT NULL,
  "finished_at" TIMESTAMPTZ NOT NULL,
  "idem_version" TEXT NOT NULL,
  "target_table" TEXT,
  "table_rows" BIGINT NOT NULL DEFAULT 0,
  "kept_on_tie" BIGINT NOT NULL DEFAULT 0,
  "input_objects" TEXT,
  "job_seq" BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY ("job", "partition", "run_id")
);
-- Ledgers written by idem 0.1 lack the column (NULL: owner unknown).
IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_attribute WHERE attrelid = to_regclass('"public"."idem_runs"') AND attname = 'target_table' AND NOT attisdropped) THEN
  ALTER TABLE "public"."idem_runs" ADD COLUMN "target_table" TEXT;
END IF;
IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_attribute WHERE attrelid = to_regclass('"public"."idem_runs"') AND attname = 'deleted_absent' AND NOT attisdropped) THEN
  ALTER TABLE "public"."idem_runs" ADD COLUMN "deleted_absent" BIGINT NOT NULL DEFAULT 0;
END IF;
-- A merge run's target row count after it; 0 where not recorded.
IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_attribute WHERE attrelid = to_regclass('"public"."idem_runs"') AND attname = 'table_rows' AND NOT attisdropped) THEN
  ALTER TABLE "public"."idem_runs" ADD COLUMN "table_rows" BIGINT NOT NULL DEFAULT 0;
END IF;
-- Staged rows a merge run did not write: an equal version, the table's row first by content.
IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_attribute WHERE attrelid = to_regclass('"public"."idem_runs"') AND attname = 'kept_on_tie' AND NOT attisdropped) THEN
  ALTER TABLE "public"."idem_runs" ADD COLUMN "kept_on_tie" BIGINT NOT NULL DEFAULT 0;
END IF;
-- Ledgers written before inputs could be objects lack the column (NULL: local files or a query).
IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_attribute WHERE attrelid = to_regclass('"public"."idem_runs"') AND attname = 'input_objects' AND NOT attisdropped) THEN
  ALTER TABLE "public"."idem_runs" ADD COLUMN "input_objects" TEXT;
END IF;
-- The job's runs in the order they were recorded, across partitions; 0 where not recorded.
IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_attribute WHERE attrelid = to_regclass('"public"."idem_runs"') AND attname = 'job_seq' AND NOT attisdropped) THEN
  ALTER TABLE "public"."idem_runs" ADD COLUMN "job_seq" BIGINT NOT NULL DEFAULT 0;
END IF;
END $idem$;

SELECT coalesce(max("seq"), 0) + 1, count(*) FILTER (WHERE "run_id" = $3) FROM "public"."idem_runs" WHERE "job" = $1 AND "partition" = $2;

SELECT coalesce(max("job_seq"), 0) + 1 FROM "public"."idem_runs" WHERE "job" = $1;

INSERT INTO "public"."idem_runs" ("job", "partition", "run_id", "seq", "input_fingerprint", "definition_hash", "strategy", "rows_in", "rows_deduped", "rows_out_of_window", "inserted", "updated", "deleted", "deleted_absent", "skipped_older", "row_count", "checksum", "partition_closed", "started_at", "finished_at", "idem_version", "target_table", "table_rows", "kept_on_tie", "input_objects", "job_seq") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26);

DROP TABLE IF EXISTS "idem_stage";

DROP TABLE IF EXISTS "idem_merge_plan";

COMMIT;
