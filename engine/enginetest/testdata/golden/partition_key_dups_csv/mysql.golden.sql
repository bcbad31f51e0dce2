-- partition 2026-11-28: [2026-11-28 00:00:00, 2026-11-29 00:00:00) UTC;

-- lock: idem_t_91a42553_1.orders partition 2026-11-28, waiting up to 10m: GET_LOCK('idem:72514e35780181c057fabe32b0d45ed7:12') (the partition's slot 12 of 32);

SELECT column_name FROM information_schema.columns WHERE table_schema = ? AND table_name = ? ORDER BY ordinal_position;

SELECT 1 FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?;

SELECT column_name FROM information_schema.columns WHERE table_schema = ? AND table_name = ? ORDER BY ordinal_position;

SELECT 1 FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?;

DROP TABLE IF EXISTS "orders__idem_build";

CREATE TEMPORARY TABLE "idem_stage" ("order_id" BIGINT, "customer_id" BIGINT, "order_date" DATE, "status" LONGTEXT, "amount" DOUBLE, "updated_at" DATETIME(6)) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;

CREATE TABLE IF NOT EXISTS "orders__idem_build" DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin AS SELECT * FROM "idem_stage" LIMIT 0;

SET @idem_ddl = (SELECT coalesce(concat('ALTER TABLE "orders__idem_build" ', group_concat(concat('MODIFY "', replace(column_name, '"', '""'), '" ',
    CASE WHEN data_type IN ('char', 'varchar', 'tinytext', 'text', 'mediumtext', 'longtext') THEN 'LONGTEXT COLLATE utf8mb4_nopad_bin' ELSE column_type END, ' NULL')
    ORDER BY ordinal_position SEPARATOR ', ')), 'DO 0')
  FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'orders__idem_build');

PREPARE idem_ddl FROM @idem_ddl;

EXECUTE idem_ddl;

DEALLOCATE PREPARE idem_ddl;

-- load $DIR/in/orders.csv into "orders__idem_build" via LOAD DATA LOCAL INFILE (the reader's rows as escaped text, streamed), straight into the new table;

LOAD DATA LOCAL INFILE 'Reader::idem_1' INTO TABLE "orders__idem_build" CHARACTER SET utf8mb4
  FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '"' ESCAPED BY '\' ("order_id", "customer_id", "order_date", "status", "amount", "updated_at");

SHOW WARNINGS LIMIT 1;

SELECT * FROM "idem_stage" LIMIT 0;

SELECT count(*) FROM "orders__idem_build" WHERE "order_id" IS NULL;

SELECT count(DISTINCT "order_id") + count(DISTINCT CASE WHEN "order_id" IS NULL THEN 'order_id=' || coalesce(REGEXP_REPLACE(CAST(x."order_id" AS CHAR), '^([0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2})\.?(\.[0-9]*[1-9])?0*$', '\1\2'), 'NULL') END) FROM "orders__idem_build" AS x;

INSERT INTO "idem_stage" ("order_id", "customer_id", "order_date", "status", "amount", "updated_at") SELECT "order_id", "customer_id", "order_date", "status", "amount", "updated_at" FROM "orders__idem_build";

DROP TABLE IF EXISTS "orders__idem_build";

CREATE TEMPORARY TABLE "idem_stage_dedup" AS SELECT "order_id", "customer_id", "order_date", "status", "amount", "updated_at" FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY "order_id" ORDER BY "updated_at" IS NULL, "updated_at" DESC, "customer_id" IS NULL, "customer_id" ASC, "order_date" IS NULL, "order_date" ASC, CAST("status" AS BINARY) IS NULL, CAST("status" AS BINARY) ASC, "amount" IS NULL, "amount" ASC) AS idem_rn FROM "idem_stage") AS x WHERE idem_rn = 1;

SELECT count(*) FROM "idem_stage_dedup";

SELECT count(*), count(CASE WHEN "order_date" >= DATE '2026-11-28' AND "order_date" < DATE '2026-11-29' THEN 1 END), count(CASE WHEN "order_date" IS NULL THEN 1 END) FROM "idem_stage_dedup";

SELECT "order_date" AS p, count(*) FROM "idem_stage_dedup" WHERE NOT ("order_date" >= DATE '2026-11-28' AND "order_date" < DATE '2026-11-29') AND "order_date" IS NOT NULL GROUP BY 1 ORDER BY 1;

SELECT column_name FROM information_schema.columns WHERE table_schema = ? AND table_name = ? ORDER BY ordinal_position;

SELECT 1 FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?;

DROP TABLE IF EXISTS "orders__idem_build";

CREATE TABLE IF NOT EXISTS "orders__idem_build" DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin AS SELECT * FROM "idem_stage" LIMIT 0;

SET @idem_ddl = (SELECT coalesce(concat('ALTER TABLE "orders__idem_build" ', group_concat(concat('MODIFY "', replace(column_name, '"', '""'), '" ',
    CASE WHEN data_type IN ('char', 'varchar', 'tinytext', 'text', 'mediumtext', 'longtext') THEN 'LONGTEXT COLLATE utf8mb4_nopad_bin' ELSE column_type END, ' NULL')
    ORDER BY ordinal_position SEPARATOR ', ')), 'DO 0')
  FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'orders__idem_build');

PREPARE idem_ddl FROM @idem_ddl;

EXECUTE idem_ddl;

DEALLOCATE PREPARE idem_ddl;

CREATE INDEX `orders__idem_partition` ON `orders__idem_build` (`order_date`);

SELECT * FROM "orders__idem_build" LIMIT 0;

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

DELETE FROM "orders__idem_build" WHERE "order_date" >= DATE '2026-11-28' AND "order_date" < DATE '2026-11-29';

INSERT INTO "orders__idem_build" ("order_id", "customer_id", "order_date", "status", "amount", "updated_at") SELECT "order_id", "customer_id", "order_date", "status", "amount", "updated_at" FROM "idem_stage_dedup" WHERE "order_date" >= DATE '2026-11-28' AND "order_date" < DATE '2026-11-29';

SELECT count(*), CAST(coalesce(sum((crc32(concat_ws(char(31), ifnull(CAST("order_id" AS BINARY), char(30)), ifnull(CAST("customer_id" AS BINARY), char(30)), ifnull(CAST("order_date" AS BINARY), char(30)), ifnull(CAST("status" AS CHAR), char(30)), ifnull(CAST("amount" AS BINARY), char(30)), ifnull(CAST("updated_at" AS BINARY), char(30)))) << 32) | crc32c(concat_ws(char(31), ifnull(CAST("order_id" AS BINARY), char(30)), ifnull(CAST("customer_id" AS BINARY), char(30)), ifnull(CAST("order_date" AS BINARY), char(30)), ifnull(CAST("status" AS CHAR), char(30)), ifnull(CAST("amount" AS BINARY), char(30)), ifnull(CAST("updated_at" AS BINARY), char(30))))), 0) AS CHAR) FROM "orders__idem_build" WHERE "order_date" >= DATE '2026-11-28' AND "order_date" < DATE '2026-11-29';

SELECT coalesce(max(r."seq"), 0) + 1, count(CASE WHEN r."run_id" = p.ps THEN 1 END) FROM "idem_runs" AS r JOIN (SELECT ? AS p0, ? AS p1, ? AS ps) AS p ON r."job" = p.p0 AND r."partition" = p.p1;

SELECT coalesce(max(r."job_seq"), 0) + 1 FROM "idem_runs" AS r JOIN (SELECT ? AS p0) AS p ON r."job" = p.p0;

INSERT INTO "idem_runs" ("job", "partition", "run_id", "seq", "input_fingerprint", "definition_hash", "strategy", "rows_in", "rows_deduped", "rows_out_of_window", "inserted", "updated", "deleted", "deleted_absent", "skipped_older", "row_count", "checksum", "partition_closed", "started_at", "finished_at", "idem_version", "target_table", "table_rows", "kept_on_tie", "input_objects", "job_seq") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?);

COMMIT;

RENAME TABLE "orders__idem_build" TO "orders";

DROP TEMPORARY TABLE IF EXISTS "idem_stage";

DROP TEMPORARY TABLE IF EXISTS "idem_stage_dedup";
