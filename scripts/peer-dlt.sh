#!/usr/bin/env bash
# Reproduces issue 38's comparison with dlt (docs/compare.md, "Measured
# beside dlt"): the same merge job, newest updated_at wins on order_id, run
# by idem and by a dlt pipeline into DuckDB (and PostgreSQL when
# PEER_PG_URL is set and psycopg2 imports): a first load of --rows rows into
# an empty table, the unchanged rerun, then a file of 10,000 newer versions
# followed by a late, older file of the same keys. Each step is one process,
# timed by its wall clock; the last line of each engine says how many of
# the 10,000 newer rows the late old file overwrote.
#
#   scripts/peer-dlt.sh [ROWS]          # default 1000000
#
# It needs python3 with dlt (and its duckdb extra) importable; it installs
# nothing. Without them it says so in one line and exits 1.
set -euo pipefail

rows="${1:-1000000}"
py="${PYTHON:-python3}"
if ! "$py" -c 'import dlt, duckdb' 2>/dev/null; then
  echo "peer-dlt: $py cannot import dlt and duckdb (pip install 'dlt[duckdb]' in a virtualenv, then PYTHON=that/python); nothing measured" >&2
  exit 1
fi

cd "$(dirname "$0")/.."
work="$(mktemp -d "${TMPDIR:-/tmp}/idem-peer-dlt.XXXXXX")"
trap 'rm -rf "$work"' EXIT
go build -o "$work/idem" ./cmd/idem
mkdir -p "$work/in"

# The data: deterministic, every value a function of the key (no clock,
# no randomness). 2026-11-28: every key; 2026-11-30: 10,000 newer
# versions; 2026-11-29: the same keys, older than those, delivered last.
"$py" - "$work/in" "$rows" <<'EOF'
import sys
out, n = sys.argv[1], int(sys.argv[2])
statuses = ["placed", "shipped", "completed", "returned"]
def write(name, keys, day, bump):
    with open(f"{out}/{name}.csv", "w") as f:
        f.write("order_id,customer_id,order_date,status,amount,updated_at\n")
        for k in keys:
            s = k % 86400
            f.write(f"{k},{k % 9973 + 1},2026-11-28,{statuses[(k + bump) % 4]},{(k * 7 + bump) % 100000 / 100:.2f},"
                    f"{day} {s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}\n")
write("2026-11-28", range(1, n + 1), "2026-11-28", 0)
write("2026-11-30", range(1, 10001), "2026-11-30", 2)
write("2026-11-29", range(1, 10001), "2026-11-29", 1)
EOF

# dlt's side: one step per process, the pipeline's state in $work/dlt.
cat > "$work/dlt_step.py" <<'EOF'
import sys, csv, datetime, decimal
import dlt

dest, target, path = sys.argv[1], sys.argv[2], sys.argv[3]

@dlt.resource(name="orders", primary_key="order_id", write_disposition="merge",
              columns={"updated_at": {"dedup_sort": "desc"}})
def orders():
    try:
        import pyarrow.csv as pacsv  # dlt's fast path for files, where installed
        yield pacsv.read_csv(path)
        return
    except ImportError:
        pass
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            yield {"order_id": int(r["order_id"]), "customer_id": int(r["customer_id"]),
                   "order_date": datetime.date.fromisoformat(r["order_date"]), "status": r["status"],
                   "amount": decimal.Decimal(r["amount"]),
                   "updated_at": datetime.datetime.fromisoformat(r["updated_at"])}

if dest == "duckdb":
    destination = dlt.destinations.duckdb(target)
else:
    destination = dlt.destinations.postgres(target)
p = dlt.pipeline(pipeline_name="peer_dlt_" + dest, destination=destination, dataset_name="peer",
                 pipelines_dir=sys.argv[4])
p.run(orders())
EOF

count_newer_duck() { # rows of the newer file (updated on 2026-11-30) still there
  "$py" -c 'import duckdb, sys; c = duckdb.connect(sys.argv[1], read_only=True); print(c.execute(sys.argv[2]).fetchone()[0])' "$1" \
    "SELECT count(*) FROM $2 WHERE order_id <= 10000 AND CAST(updated_at AS DATE) = DATE '2026-11-30'"
}
count_newer_pg() {
  "$py" -c 'import psycopg2, sys; c = psycopg2.connect(sys.argv[1]).cursor(); c.execute(sys.argv[2]); print(c.fetchone()[0])' "$1" \
    "SELECT count(*) FROM $2 WHERE order_id <= 10000 AND CAST(updated_at AS DATE) = DATE '2026-11-30'"
}

secs() { # runs a command, prints its wall time in seconds
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; return 1; }
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'
}

measure() { # engine idem-url dlt-target
  local engine=$1 url=$2 dtarget=$3
  cat > "$work/job.yaml" <<EOF
idem: 1
job: peer_orders
target: {url: "$url", table: orders}
source: {files: "in/{{ date }}.csv"}
strategy: merge
key: [order_id]
latest_by: updated_at
columns: {amount: "DECIMAL(12,2)"}
EOF
  local idem="$work/idem" step="$work/dlt_step.py" d=$work/dlt-$engine
  i1=$(secs "$idem" run "$work/job.yaml" --date 2026-11-28)
  d1=$(secs "$py" "$step" "$engine" "$dtarget" "$work/in/2026-11-28.csv" "$d")
  i2=$(secs "$idem" run "$work/job.yaml" --date 2026-11-28)
  d2=$(secs "$py" "$step" "$engine" "$dtarget" "$work/in/2026-11-28.csv" "$d")
  secs "$idem" run "$work/job.yaml" --date 2026-11-30 >/dev/null
  secs "$idem" run "$work/job.yaml" --date 2026-11-29 >/dev/null
  secs "$py" "$step" "$engine" "$dtarget" "$work/in/2026-11-30.csv" "$d" >/dev/null
  secs "$py" "$step" "$engine" "$dtarget" "$work/in/2026-11-29.csv" "$d" >/dev/null
  printf '| %s | first load, %s rows | %s s | %s s | %.0f× |\n' "$engine" "$rows" "$i1" "$d1" "$(awk -v a="$d1" -v b="$i1" 'BEGIN { print a / b }')"
  printf '| %s | unchanged rerun | %s s | %s s | %.0f× |\n' "$engine" "$i2" "$d2" "$(awk -v a="$d2" -v b="$i2" 'BEGIN { print a / b }')"
}

echo "| engine | step | idem | dlt | dlt / idem |"
echo "|---|---|---|---|---|"
measure duckdb "duckdb:$work/idem.duckdb" "$work/dlt.duckdb"
duck_idem=$(count_newer_duck "$work/idem.duckdb" orders)
duck_dlt=$(count_newer_duck "$work/dlt.duckdb" peer.orders)
echo "| duckdb | late old file: of the 10,000 newer rows, still newest | $duck_idem | $duck_dlt | |"
if [ -n "${PEER_PG_URL:-}" ] && "$py" -c 'import psycopg2' 2>/dev/null; then
  # Two schemas of their own, dropped first: idem's and dlt's tables.
  "$py" -c 'import psycopg2, sys; c = psycopg2.connect(sys.argv[1]); c.autocommit = True; [c.cursor().execute(q) for q in ("DROP SCHEMA IF EXISTS peer_idem CASCADE", "CREATE SCHEMA peer_idem", "DROP SCHEMA IF EXISTS peer CASCADE")]' "$PEER_PG_URL"
  sep='?'; case "$PEER_PG_URL" in *\?*) sep='&';; esac
  measure postgres "$PEER_PG_URL${sep}search_path=peer_idem" "$PEER_PG_URL"
  echo "| postgres | late old file: of the 10,000 newer rows, still newest | $(count_newer_pg "$PEER_PG_URL" peer_idem.orders) | $(count_newer_pg "$PEER_PG_URL" peer.orders) | |"
fi
