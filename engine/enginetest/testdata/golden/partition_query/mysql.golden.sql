-- partition 2026-11-28: [2026-11-28 00:00:00, 2026-11-29 00:00:00) UTC;

-- lock: idem_t_8a726396_1.daily_orders partition 2026-11-28, waiting up to 10m: GET_LOCK('idem:f2cd143bdf0e0b420acf877bda8bc07f:12') (the partition's slot 12 of 32);

SELECT column_name FROM information_schema.columns WHERE table_schema = ? AND table_name = ? ORDER BY ordinal_position;

SELECT 1 FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?;

CREATE TEMPORARY TABLE "idem_stage" AS SELECT CAST(created_at AS DATE) AS order_date, order_id, status, amount
FROM raw_orders
WHERE created_at >= DATE '2026-11-28' AND created_at < DATE '2026-11-29';

SELECT * FROM "idem_stage" LIMIT 0;

SELECT count(*), CAST(coalesce(sum(CAST(conv(substr(md5(concat_ws(char(31), ifnull(CAST("order_date" AS BINARY), char(30)), ifnull(CAST("order_id" AS BINARY), char(30)), ifnull(CAST("status" AS CHAR), char(30)), ifnull(CAST("amount" AS BINARY), char(30)))), 1, 16), 16, 10) AS UNSIGNED)), 0) AS CHAR) FROM "idem_stage";

SELECT count(*) FROM "idem_stage";

SELECT count(*), count(CASE WHEN "order_date" >= DATE '2026-11-28' AND "order_date" < DATE '2026-11-29' THEN 1 END), count(CASE WHEN "order_date" IS NULL THEN 1 END) FROM "idem_stage";

SELECT column_name FROM information_schema.columns WHERE table_schema = ? AND table_name = ? ORDER BY ordinal_position;

SELECT 1 FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?;

DROP TABLE IF EXISTS "daily_orders__idem_build";

CREATE TABLE IF NOT EXISTS "daily_orders__idem_build" DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin AS SELECT * FROM "idem_stage" LIMIT 0;

SET @idem_ddl = (SELECT coalesce(concat('ALTER TABLE "daily_orders__idem_build" ', group_concat(concat('MODIFY "', replace(column_name, '"', '""'), '" ',
    CASE WHEN data_type IN ('char', 'varchar', 'tinytext', 'text', 'mediumtext', 'longtext') THEN 'LONGTEXT COLLATE utf8mb4_nopad_bin' ELSE column_type END, ' NULL')
    ORDER BY ordinal_position SEPARATOR ', ')), 'DO 0')
  FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'daily_orders__idem_build');

PREPARE idem_ddl FROM @idem_ddl;

EXECUTE idem_ddl;

DEALLOCATE PREPARE idem_ddl;

CREATE INDEX `daily_orders__idem_partition` ON `daily_orders__idem_build` (`order_date`);

SELECT * FROM "daily_orders__idem_build" LIMIT 0;

CREATE TABLE IF NOT EXISTS "idem_runs" (
  "job" VARCHAR(255) NOT NULL,
  "partition" VARCHAR(255) NOT NULL,
  "run_id" VARCHAR(255) NOT NULL,
  "seq" BIGINT NOT NULL,
  "input_fingerprint" LONGTEXT NOT NULL,
  "definition_hash" LONGTEXT NOT NULL,
  "strategy" LONGTEXT NOT NULL,
  "rows_in" BIGINT NOT NULL,
  "rows_deduped" BIGINT NOT NULL,
  "rows_out_of_window" BIGINT NOT NULL,
  "inserted" BIGINT NOT NULL,
  "updated" BIGINT NOT NULL,
  "deleted" BIGINT NOT NULL,
  "deleted_absent" BIGINT NOT NULL DEFAULT 0,
  "skipped_older" BIGINT NOT NULL,
  "row_count" BIGINT NOT NULL,
  "checksum" LONGTEXT NOT NULL,
  "partition_closed" BIT(1) NOT NULL,
  "started_at" DATETIME(6) NOT NULL,
  "finished_at" DATETIME(6) NOT NULL,
  "idem_version" LONGTEXT NOT NULL,
  "target_table" LONGTEXT COMMENT 'Ledgers written by idem 0.1 lack the column (NULL: owner unknown).',
  "table_rows" BIGINT NOT NULL DEFAULT 0 COMMENT 'A merge run''s target row count after it; 0 where not recorded.',
  "kept_on_tie" BIGINT NOT NULL DEFAULT 0 COMMENT 'Staged rows a merge run did not write: an equal version, the table''s row first by content.',
  "input_objects" LONGTEXT COMMENT 'Ledgers written before inputs could be objects lack the column (NULL: local files or a query).',
  "job_seq" BIGINT NOT NULL DEFAULT 0 COMMENT 'The job''s runs in the order they were recorded, across partitions; 0 where not recorded.',
  PRIMARY KEY ("job", "partition", "run_id")
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;

SET @idem_ddl = (SELECT IF(count(*) > 0, 'DO 0', 'ALTER TABLE "idem_runs" ADD COLUMN "target_table" LONGTEXT COMMENT ''Ledgers written by idem 0.1 lack the column (NULL: owner unknown).''') FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'idem_runs' AND column_name = 'target_table');

PREPARE idem_ddl FROM @idem_ddl;

EXECUTE idem_ddl;

DEALLOCATE PREPARE idem_ddl;

SET @idem_ddl = (SELECT IF(count(*) > 0, 'DO 0', 'ALTER TABLE "idem_runs" ADD COLUMN "deleted_absent" BIGINT NOT NULL DEFAULT 0') FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'idem_runs' AND column_name = 'deleted_absent');

PREPARE idem_ddl FROM @idem_ddl;

EXECUTE idem_ddl;

DEALLOCATE PREPARE idem_ddl;

SET @idem_ddl = (SELECT IF(count(*) > 0, 'DO 0', 'ALTER TABLE "idem_runs" ADD COLUMN "table_rows" BIGINT NOT NULL DEFAULT 0 COMMENT ''A merge run''''s target row count after it; 0 where not recorded.''') FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'idem_runs' AND column_name = 'table_rows');

PREPARE idem_ddl FROM @idem_ddl;

EXECUTE idem_ddl;

DEALLOCATE PREPARE idem_ddl;

SET @idem_ddl = (SELECT IF(count(*) > 0, 'DO 0', 'ALTER TABLE "idem_runs" ADD COLUMN "kept_on_tie" BIGINT NOT NULL DEFAULT 0 COMMENT ''Staged rows a merge run did not write: an equal version, the table''''s row first by content.''') FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'idem_runs' AND column_name = 'kept_on_tie');

PREPARE idem_ddl FROM @idem_ddl;

EXECUTE idem_ddl;

DEALLOCATE PREPARE idem_ddl;

SET @idem_ddl = (SELECT IF(count(*) > 0, 'DO 0', 'ALTER TABLE "idem_runs" ADD COLUMN "input_objects" LONGTEXT COMMENT ''Ledgers written before inputs could be objects lack the column (NULL: local files or a query).''') FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'idem_runs' AND column_name = 'input_objects');

PREPARE idem_ddl FROM @idem_ddl;

EXECUTE idem_ddl;

DEALLOCATE PREPARE idem_ddl;

SET @idem_ddl = (SELECT IF(count(*) > 0, 'DO 0', 'ALTER TABLE "idem_runs" ADD COLUMN "job_seq" BIGINT NOT NULL DEFAULT 0 COMMENT ''The job''''s runs in the order they were recorded, across partitions; 0 where not recorded.''') FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'idem_runs' AND column_name = 'job_seq');

PREPARE idem_ddl FROM @idem_ddl;

EXECUTE idem_ddl;

DEALLOCATE PREPARE idem_ddl;

BEGIN;

DELETE FROM "daily_orders__idem_build" WHERE "order_date" >= DATE '2026-11-28' AND "order_date" < DATE '2026-11-29';

INSERT INTO "daily_orders__idem_build" ("order_date", "order_id", "status", "amount") SELECT "order_date", "order_id", "status", "amount" FROM "idem_stage" WHERE "order_date" >= DATE '2026-11-28' AND "order_date" < DATE '2026-11-29';

SELECT count(*), CAST(coalesce(sum((crc32(concat_ws(char(31), ifnull(CAST("order_date" AS BINARY), char(30)), ifnull(CAST("order_id" AS BINARY), char(30)), ifnull(CAST("status" AS CHAR), char(30)), ifnull(CAST("amount" AS BINARY), char(30)))) << 32) | crc32c(concat_ws(char(31), ifnull(CAST("order_date" AS BINARY), char(30)), ifnull(CAST("order_id" AS BINARY), char(30)), ifnull(CAST("status" AS CHAR), char(30)), ifnull(CAST("amount" AS BINARY), char(30))))), 0) AS CHAR) FROM "daily_orders__idem_build" WHERE "order_date" >= DATE '2026-11-28' AND "order_date" < DATE '2026-11-29';

SELECT coalesce(max(r."seq"), 0) + 1, count(CASE WHEN r."run_id" = p.ps THEN 1 END) FROM "idem_runs" AS r JOIN (SELECT ? AS p0, ? AS p1, ? AS ps) AS p ON r."job" = p.p0 AND r."partition" = p.p1;

SELECT coalesce(max(r."job_seq"), 0) + 1 FROM "idem_runs" AS r JOIN (SELECT ? AS p0) AS p ON r."job" = p.p0;

INSERT INTO "idem_runs" ("job", "partition", "run_id", "seq", "input_fingerprint", "definition_hash", "strategy", "rows_in", "rows_deduped", "rows_out_of_window", "inserted", "updated", "deleted", "deleted_absent", "skipped_older", "row_count", "checksum", "partition_closed", "started_at", "finished_at", "idem_version", "target_table", "table_rows", "kept_on_tie", "input_objects", "job_seq") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?);

COMMIT;

RENAME TABLE "daily_orders__idem_build" TO "daily_orders";

DROP TEMPORARY TABLE IF EXISTS "idem_stage";
