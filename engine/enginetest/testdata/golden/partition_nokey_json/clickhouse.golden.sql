-- partition 2026-11-28T13: [2026-11-28 13:00:00, 2026-11-28 14:00:00) UTC;

-- lock: default.events partition 2026-11-28T13, waiting up to 10m;

SELECT name FROM system.columns WHERE table = $1 AND database = $2;

SELECT 1 FROM system.tables WHERE name = $1 AND database = currentDatabase();

SELECT name FROM system.columns WHERE table = $1 AND database = $2;

SELECT 1 FROM system.tables WHERE name = $1 AND database = currentDatabase();

DROP TABLE IF EXISTS "events__idem_build";

DROP TEMPORARY TABLE IF EXISTS "idem_stage";

CREATE TEMPORARY TABLE "idem_stage" ("ts" Nullable(DateTime64(6)), "kind" Nullable(String), "n" Nullable(Int64)) ENGINE = MergeTree ORDER BY tuple();

SELECT * FROM "idem_stage" LIMIT 0;

CREATE TABLE IF NOT EXISTS "events__idem_build" ENGINE = MergeTree PARTITION BY toStartOfHour("ts", 'UTC') ORDER BY tuple() SETTINGS allow_nullable_key = 1 EMPTY AS SELECT * FROM "idem_stage";

-- load $DIR/in/events.jsonl into "events__idem_build" via RowBinary spool files of up to 262144 of the reader's typed rows, each read by INSERT … SELECT FROM file(), straight into the new table;

INSERT INTO "events__idem_build" ("ts", "kind", "n") SELECT * FROM file(<a spool file of the rows, RowBinary>, 'RowBinary', 'c1 Nullable(DateTime64(6)), c2 Nullable(String), c3 Nullable(Int64)') SETTINGS max_partitions_per_insert_block = 0 -- for each 262144 rows;

SELECT * FROM "idem_stage" LIMIT 0;

SELECT count(*), count(*) FILTER (WHERE "ts" >= toDateTime64('2026-11-28 13:00:00', 6, 'UTC') AND "ts" < toDateTime64('2026-11-28 14:00:00', 6, 'UTC')), count(*) FILTER (WHERE "ts" IS NULL) FROM "events__idem_build";

SELECT toStartOfHour("ts", 'UTC') AS p, count(*) FROM "events__idem_build" WHERE NOT ("ts" >= toDateTime64('2026-11-28 13:00:00', 6, 'UTC') AND "ts" < toDateTime64('2026-11-28 14:00:00', 6, 'UTC')) AND "ts" IS NOT NULL GROUP BY 1 ORDER BY 1;

SELECT * FROM "events__idem_build" LIMIT 0;

DELETE FROM "events__idem_build" WHERE NOT ("ts" >= toDateTime64('2026-11-28 13:00:00', 6, 'UTC') AND "ts" < toDateTime64('2026-11-28 14:00:00', 6, 'UTC'));

DELETE FROM "events__idem_build" WHERE "ts" IS NULL;

SELECT count(*) FROM "events__idem_build" WHERE "ts" >= toDateTime64('2026-11-28 13:00:00', 6, 'UTC') AND "ts" < toDateTime64('2026-11-28 14:00:00', 6, 'UTC');

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

SELECT count(*), toString(sum(cityHash64(tuple("ts", "kind", "n")))) FROM "events__idem_build" WHERE "ts" >= toDateTime64('2026-11-28 13:00:00', 6, 'UTC') AND "ts" < toDateTime64('2026-11-28 14:00:00', 6, 'UTC');

RENAME TABLE "events__idem_build" TO "events";

SELECT coalesce(max("seq"), 0) + 1, count(*) FILTER (WHERE "run_id" = $3) FROM "idem_runs" WHERE "job" = $1 AND "partition" = $2;

SELECT coalesce(max("job_seq"), 0) + 1 FROM "idem_runs" WHERE "job" = $1;

INSERT INTO "idem_runs" ("job", "partition", "run_id", "seq", "input_fingerprint", "definition_hash", "strategy", "rows_in", "rows_deduped", "rows_out_of_window", "inserted", "updated", "deleted", "deleted_absent", "skipped_older", "row_count", "checksum", "partition_closed", "started_at", "finished_at", "idem_version", "target_table", "table_rows", "kept_on_tie", "input_objects", "job_seq") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26);

COMMIT;

DROP TABLE IF EXISTS "idem_stage";
