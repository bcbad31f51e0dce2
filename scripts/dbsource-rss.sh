#!/usr/bin/env bash
# Peak RSS of database-source runs (issue 36: moving 10M rows <= 256 MB),
# each pair's first load and its unchanged rerun (skipped), under
# /usr/bin/time -f %M (KiB; its figure is the run's own, not raised by a
# parent). A PostgreSQL table of ROWS orders on one day is the first
# source; idem's own loads of it into MariaDB, DuckDB and chDB are the
# other sources. Runs hold the benchmark lock (flock /tmp/idem-bench.lock).
#
#   go build -o /tmp/idem ./cmd/idem
#   export IDEM_CHDB_LIB="$(scripts/fetch-chdb.sh)"
#   scripts/dbsource-rss.sh /tmp/idem [ROWS] [PAIRS]
#
# PAIRS (comma-separated, default all): pg-duckdb, pg-postgres, pg-mysql,
# pg-clickhouse, mysql-duckdb, duckdb-duckdb, duckdb-postgres,
# clickhouse-duckdb. A source other than PostgreSQL is the target of its
# pg- pair, which must have run (in this or an earlier call with the same
# WORK). Prints "pair run seconds KiB action" lines; leaves its PostgreSQL
# schemas, ledger rows, MariaDB database and files until
# `scripts/dbsource-rss.sh --clean`. Jobs are named PREFIX+pair: the PostgreSQL ledger (one per
# database) must not see two scripts' runs of one job, so give concurrent
# calls different PREFIX and WORK.
set -euo pipefail

PG="${PG:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}"
MY="root@127.0.0.1:3306" # the mariadb client below logs in as root too
P="${PREFIX:-idem_rss_}" # PostgreSQL schemas and the MariaDB database
WORK="${WORK:-/tmp/idem-dbsource-rss}"

if [ "${1:-}" = "--clean" ]; then
  for s in src pg duck; do psql -q "$PG" -c "DROP SCHEMA IF EXISTS ${P}$s CASCADE"; done
  # PostgreSQL targets keep their ledger in the database's public schema.
  for t in idem_runs idem_failures; do
    psql -q "$PG" -c "DO \$\$ BEGIN IF to_regclass('public.$t') IS NOT NULL THEN
      DELETE FROM public.$t WHERE left(job, length('${P}')) = '${P}'; END IF; END \$\$"
  done
  mariadb -h 127.0.0.1 -u root -e "DROP DATABASE IF EXISTS ${P}my"
  rm -rf "$WORK"
  exit 0
fi

IDEM="${1:?usage: dbsource-rss.sh IDEM [ROWS] [PAIRS] | --clean}"
ROWS="${2:-10000000}"
PAIRS="${3:-pg-duckdb,pg-postgres,pg-mysql,pg-clickhouse,mysql-duckdb,duckdb-duckdb,duckdb-postgres,clickhouse-duckdb}"
mkdir -p "$WORK"
DAY=2026-11-28

# The PostgreSQL source: the benchmark's orders (idem-bench's columns),
# made again only when its row count differs.
have="$(psql -Atq "$PG" -c "SELECT count(*) FROM ${P}src.orders" 2>/dev/null || echo 0)"
if [ "$have" != "$ROWS" ]; then
  psql -q "$PG" <<SQL
DROP SCHEMA IF EXISTS ${P}src CASCADE;
CREATE SCHEMA ${P}src;
CREATE TABLE ${P}src.orders (order_id bigint, customer_id bigint, order_date date, status text,
  amount numeric(12,2), updated_at timestamp);
INSERT INTO ${P}src.orders
SELECT k, k % 9973 + 1, DATE '$DAY', (ARRAY['placed','shipped','completed','returned'])[k % 4 + 1],
       (k % 100000) / 100.0, DATE '$DAY' + (k % 86400) * INTERVAL '1 second'
FROM generate_series(CAST(1 AS BIGINT), $ROWS) AS g(k);
VACUUM ANALYZE ${P}src.orders;
SQL
fi
psql -q "$PG" -c "CREATE SCHEMA IF NOT EXISTS ${P}pg" -c "CREATE SCHEMA IF NOT EXISTS ${P}duck"
mariadb -h 127.0.0.1 -u root -e "CREATE DATABASE IF NOT EXISTS ${P}my"

# The URLs each engine is a source and a target at.
url() {
  case "$1" in
    pg) echo "${PG}&search_path=${P}src" ;;
    postgres) echo "$PG" ;;
    mysql) echo "mysql://${MY}/${P}my" ;;
    duckdb) echo "duckdb:$WORK/$2.duckdb" ;;
    clickhouse) echo "chdb:$WORK/ch" ;;
  esac
}
# The target table of a pair: PostgreSQL targets in a schema of their own.
table() {
  case "$1" in
    postgres) echo "$2.orders" ;;
    *) echo orders ;;
  esac
}

# fresh empties a pair's target before its first load.
fresh() {
  local pair="$1" tgt="${1#*-}"
  case "$tgt" in
    duckdb) rm -f "$WORK/$pair.duckdb" "$WORK/$pair.duckdb.wal" ;;
    postgres)
      local s="${P}pg"
      [ "$pair" = duckdb-postgres ] && s="${P}duck"
      psql -q "$PG" -c "DROP SCHEMA IF EXISTS $s CASCADE" -c "CREATE SCHEMA $s" ;;
    mysql) mariadb -h 127.0.0.1 -u root -e "DROP DATABASE IF EXISTS ${P}my; CREATE DATABASE ${P}my" ;;
    clickhouse) rm -rf "$WORK/ch" ;;
  esac
}

job() {
  local pair="$1" src="${1%-*}" tgt="${1#*-}" srcURL tgtURL tbl
  case "$src" in
    pg) srcURL="$(url pg)" ;;
    duckdb) srcURL="$(url duckdb pg-duckdb)" ;;
    *) srcURL="$(url "$src")" ;;
  esac
  tgtURL="$(url "$tgt" "$pair")"
  tbl=orders
  if [ "$tgt" = postgres ]; then
    tbl="${P}pg.orders"
    [ "$pair" = duckdb-postgres ] && tbl="${P}duck.orders"
  fi
  cat >"$WORK/$pair.yaml" <<YAML
idem: 1
job: ${P}$pair # the ledger of PostgreSQL targets is the database's: one name a prefix
target:
  url: "$tgtURL"
  table: $tbl
source:
  url: "$srcURL"
  table: orders
strategy: partition
partition:
  column: order_date
YAML
}

measure() {
  local pair="$1" what="$2" out
  out="$(flock /tmp/idem-bench.lock /usr/bin/time -f "%e %M" "$IDEM" run "$WORK/$pair.yaml" --date "$DAY" --json 2>"$WORK/time" || true)"
  echo "$pair $what $(tail -1 "$WORK/time") $(echo "$out" | sed -n 's/.*"action":"\([a-z]*\)".*/\1/p')$(echo "$out" | sed -n 's/.*"error":"\([^"]*\)".*/ error: \1/p')"
}

for pair in ${PAIRS//,/ }; do
  fresh "$pair"
  job "$pair"
  measure "$pair" load
  measure "$pair" rerun
done
