#!/usr/bin/env bash
# Fetches libchdb.so (embedded ClickHouse, for chdb: targets) with npm into
# a cache folder, once, and prints its path. Use it as
#   export IDEM_CHDB_LIB="$(scripts/fetch-chdb.sh)"
# idem also looks in the cache folder by itself. The library comes from the
# npm package @chdb/lib-linux-x64-gnu (Apache-2.0): a 166 MB download
# holding the 559 MB library. Linux x86-64 only.
set -euo pipefail

version="${CHDB_VERSION:-26.5.3}"
dir="${XDG_CACHE_HOME:-$HOME/.cache}/idem/chdb/$version"
lib="$dir/libchdb.so"

if [ ! -s "$lib" ]; then
  command -v npm >/dev/null || { echo "fetch-chdb: npm is needed (apt-get install npm)" >&2; exit 1; }
  mkdir -p "$dir"
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack --silent "@chdb/lib-linux-x64-gnu@$version" >&2)
  tar -xzf "$tmp"/chdb-lib-linux-x64-gnu-"$version".tgz -C "$tmp" package/libchdb.so
  mv "$tmp/package/libchdb.so" "$lib.part"
  mv "$lib.part" "$lib"
fi
echo "$lib"
