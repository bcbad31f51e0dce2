-- partition 2026-11-28: [2026-11-28 00:00:00, 2026-11-29 00:00:00) UTC;

BEGIN;

-- lock: sales.orders partition 2026-11-28, waiting up to 10m: pg_advisory_xact_lock_shared(-8467870317952494925) (the table's key), pg_advisory_xact_lock(619689037655373971) (the partition's key);

SELECT column_name FROM information_schema.columns WHERE table_catalog = current_database() AND table_schema = $1 AND table_name = $2;

SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = $1 AND tablename = $2;

CREATE TEMP TABLE "idem_stage" ("order_id" BIGINT, "customer_id" BIGINT, "created_at" TIMESTAMP, "status" TEXT, "amount" NUMERIC(12,2), "updated_at" TIMESTAMP);

-- load $DIR/in/2026/11/orders.csv into "idem_stage" via COPY FROM STDIN (binary);

COPY "idem_stage" ("order_id", "customer_id", "created_at", "status", "amount", "updated_at") FROM STDIN (FORMAT binary);

SELECT * FROM "idem_stage" LIMIT 0;

SELECT count(*) FROM "idem_stage" WHERE "order_id" IS NULL;

SELECT count(DISTINCT "order_id") + CASE WHEN bool_or("order_id" IS NULL) THEN 1 ELSE 0 END FROM "idem_stage";

CREATE TEMP TABLE "idem_stage_dedup" AS SELECT DISTINCT ON ("order_id") * FROM "idem_stage" ORDER BY "order_id", "updated_at" DESC NULLS LAST, "customer_id" ASC NULLS LAST, "created_at" ASC NULLS LAST, "status" COLLATE "C" ASC NULLS LAST, "amount" ASC NULLS LAST;

SELECT count(*) FROM "idem_stage_dedup";

SELECT pg_advisory_xact_lock(-4284044477251941855);

DO $idem$ BEGIN
CREATE SCHEMA IF NOT EXISTS "sales";
EXCEPTION WHEN unique_violation OR duplicate_table OR duplicate_schema THEN NULL;
END $idem$;

DO $idem$ BEGIN
CREATE TABLE IF NOT EXISTS "sales"."orders" AS SELECT *, CAST(NULL AS TIMESTAMPTZ) AS "_loaded_at" FROM "idem_stage" WITH NO DATA;
EXCEPTION WHEN unique_violation OR duplicate_table OR duplicate_schema THEN NULL;
END $idem$;

DO $idem$ BEGIN
CREATE INDEX IF NOT EXISTS "orders__idem_partition" ON "sales"."orders" USING brin ("created_at") WITH (autosummarize = on);
EXCEPTION WHEN unique_violation OR duplicate_table OR duplicate_schema THEN NULL;
END $idem$;

SELECT * FROM "sales"."orders" LIMIT 0;

SELECT count(*), count(*) FILTER (WHERE "created_at" >= TIMESTAMP '2026-11-28 00:00:00' AND "created_at" < TIMESTAMP '2026-11-29 00:00:00'), count(*) FILTER (WHERE "created_at" IS NULL) FROM "idem_stage_dedup";

SELECT date_trunc('day', "created_at") AS p, count(*) FROM "idem_stage_dedup" WHERE NOT ("created_at" >= TIMESTAMP '2026-11-28 00:00:00' AND "created_at" < TIMESTAMP '2026-11-29 00:00:00') AND "created_at" IS NOT NULL GROUP BY 1 ORDER BY 1;

DELETE FROM "sales"."orders" WHERE "created_at" >= TIMESTAMP '2026-11-28 00:00:00' AND "created_at" < TIMESTAMP '2026-11-29 00:00:00';

INSERT INTO "sales"."orders" ("order_id", "customer_id", "created_at", "status", "amount", "updated_at", "_loaded_at") SELECT "order_id", "customer_id", "created_at", "status", "amount", "updated_at", $1 FROM "idem_stage_dedup" WHERE "created_at" >= TIMESTAMP '2026-11-28 00:00:00' AND "created_at" < TIMESTAMP '2026-11-29 00:00:00';

SELECT count(*), CAST(coalesce(sum(hash_record_extended(ROW("order_id", "customer_id", "created_at", "status", "amount", "updated_at"), 0)), 0) AS TEXT) FROM "sales"."orders" WHERE "created_at" >= TIMESTAMP '2026-11-28 00:00:00' AND "created_at" < TIMESTAMP '2026-11-29 00:00:00';

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

DROP TABLE IF EXISTS "idem_stage_dedup";

COMMIT;
