-- partition 2026-11-28T13: [2026-11-28 13:00:00, 2026-11-28 14:00:00) UTC;

BEGIN;

-- lock: main.events partition 2026-11-28T13, waiting up to 10m: the database file is this process's alone since it was opened (DuckDB's file lock); runs in this process take turns on it;

SELECT column_name FROM information_schema.columns WHERE table_catalog = current_database() AND table_schema = $1 AND table_name = $2;

SELECT 1 FROM information_schema.tables WHERE table_catalog = current_database() AND table_schema = $1 AND table_name = $2;

CREATE TEMP TABLE "idem_stage" ("ts" TIMESTAMP, "kind" VARCHAR, "n" BIGINT);

SELECT 1 FROM information_schema.tables WHERE table_catalog = current_database() AND table_schema = $1 AND table_name = $2;

CREATE TABLE "events" AS SELECT * FROM "idem_stage" LIMIT 0;

-- load $DIR/in/events.jsonl into "events" via the reader's typed rows, pulled by DuckDB through a table function, straight into the new table;

INSERT INTO "events" ("ts", "kind", "n") SELECT * FROM idem_input_rows(0);

SELECT * FROM "idem_stage" LIMIT 0;

SELECT * FROM "events" LIMIT 0;

SELECT count(*), count(*) FILTER (WHERE "ts" >= TIMESTAMP '2026-11-28 13:00:00' AND "ts" < TIMESTAMP '2026-11-28 14:00:00'), count(*) FILTER (WHERE "ts" IS NULL) FROM "events";

SELECT date_trunc('hour', "ts") AS p, count(*) FROM "events" WHERE NOT ("ts" >= TIMESTAMP '2026-11-28 13:00:00' AND "ts" < TIMESTAMP '2026-11-28 14:00:00') AND "ts" IS NOT NULL GROUP BY 1 ORDER BY 1;

DELETE FROM "events" WHERE NOT ("ts" >= TIMESTAMP '2026-11-28 13:00:00' AND "ts" < TIMESTAMP '2026-11-28 14:00:00');

DELETE FROM "events" WHERE "ts" IS NULL;

SELECT count(*), CAST(coalesce(sum(hash("ts", "kind", "n")), 0) AS VARCHAR) FROM "events" WHERE "ts" >= TIMESTAMP '2026-11-28 13:00:00' AND "ts" < TIMESTAMP '2026-11-28 14:00:00';

CREATE TABLE IF NOT EXISTS "idem_runs" (
  "job" VARCHAR NOT NULL,
  "partition" VARCHAR NOT NULL,
  "run_id" VARCHAR NOT NULL,
  "seq" BIGINT NOT NULL,
  "input_fingerprint" VARCHAR NOT NULL,
  "definition_hash" VARCHAR NOT NULL,
  "strategy" VARCHAR NOT NULL,
  "rows_in" BIGINT NOT NULL,
  "rows_deduped" BIGINT NOT NULL,
  "rows_out_of_window" BIGINT NOT NULL,
  "inserted" BIGINT NOT NULL,
  "updated" BIGINT NOT NULL,
  "deleted" BIGINT NOT NULL,
  "deleted_absent" BIGINT NOT NULL DEFAULT 0,
  "skipped_older" BIGINT NOT NULL,
  "row_count" BIGINT NOT NULL,
  "checksum" VARCHAR NOT NULL,
  "partition_closed" BOOLEAN NOT NULL,
  "started_at" TIMESTAMPTZ NOT NULL,
  "finished_at" TIMESTAMPTZ NOT NULL,
  "idem_version" VARCHAR NOT NULL,
  "target_table" VARCHAR,
  "table_rows" BIGINT NOT NULL DEFAULT 0,
  "kept_on_tie" BIGINT NOT NULL DEFAULT 0,
  "input_objects" VARCHAR,
  "job_seq" BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY ("job", "partition", "run_id")
);

ALTER TABLE "idem_runs" ADD COLUMN IF NOT EXISTS "target_table" VARCHAR;

ALTER TABLE "idem_runs" ADD COLUMN IF NOT EXISTS "deleted_absent" BIGINT DEFAULT 0;

ALTER TABLE "idem_runs" ADD COLUMN IF NOT EXISTS "table_rows" BIGINT DEFAULT 0;

ALTER TABLE "idem_runs" ADD COLUMN IF NOT EXISTS "kept_on_tie" BIGINT DEFAULT 0;

ALTER TABLE "idem_runs" ADD COLUMN IF NOT EXISTS "input_objects" VARCHAR;

ALTER TABLE "idem_runs" ADD COLUMN IF NOT EXISTS "job_seq" BIGINT DEFAULT 0;

SELECT coalesce(max("seq"), 0) + 1, count(*) FILTER (WHERE "run_id" = $3) FROM "idem_runs" WHERE "job" = $1 AND "partition" = $2;

SELECT coalesce(max("job_seq"), 0) + 1 FROM "idem_runs" WHERE "job" = $1;

INSERT INTO "idem_runs" ("job", "partition", "run_id", "seq", "input_fingerprint", "definition_hash", "strategy", "rows_in", "rows_deduped", "rows_out_of_window", "inserted", "updated", "deleted", "deleted_absent", "skipped_older", "row_count", "checksum", "partition_closed", "started_at", "finished_at", "idem_version", "target_table", "table_rows", "kept_on_tie", "input_objects", "job_seq") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26);

DROP TABLE IF EXISTS "idem_stage";

COMMIT;
