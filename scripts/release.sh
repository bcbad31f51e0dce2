#!/usr/bin/env bash
# Builds idem's release archives: scripts/release.sh VERSION (v1.2.3).
#
# idem links DuckDB with cgo, so each binary needs a C and C++ toolchain for
# its platform: Go cross-compiles pure Go, not the C++ it links. What this
# script builds therefore depends on where it runs:
#   - on Linux: linux-amd64 (or linux-arm64) natively, and the other Linux
#     architecture when its cross compiler is installed (gcc-aarch64-linux-gnu
#     and g++-aarch64-linux-gnu on amd64; gcc-x86-64-linux-gnu and
#     g++-x86-64-linux-gnu on arm64); a missing one is skipped with a note;
#   - on macOS (with the Xcode command line tools): darwin-arm64 and
#     darwin-amd64, clang building either architecture;
#   - macOS binaries are not built on Linux: that needs Apple's SDK and a
#     cross toolchain (osxcross), which this script does not attempt.
# So a release is this script run on a Linux machine and on a Mac, the
# archives of both put together. Each archive holds the binary and the
# README; SHA256SUMS lists the archives made here. Linux binaries need
# glibc 2.36 or later when built on Debian 12 (the version the build
# machine has), and libstdc++.
#
# Output goes to $DIST (default dist/). Nothing else is written.
set -euo pipefail
cd "$(dirname "$0")/.."

version="${1:-}"
if [[ ! "$version" =~ ^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]; then
  echo "usage: scripts/release.sh vMAJOR.MINOR.PATCH" >&2
  exit 2
fi
dist="${DIST:-dist}"
mkdir -p "$dist"

host_os="$(go env GOHOSTOS)"
host_arch="$(go env GOHOSTARCH)"
targets=()
case "$host_os" in
  linux)
    targets+=("linux amd64 x86_64-linux-gnu" "linux arm64 aarch64-linux-gnu") ;;
  darwin)
    targets+=("darwin arm64 arm64" "darwin amd64 x86_64") ;;
  *)
    echo "release: builds on Linux and macOS only (this is $host_os)" >&2
    exit 1 ;;
esac

made=()
for t in "${targets[@]}"; do
  read -r goos goarch triple <<<"$t"
  cc="" cxx=""
  if [ "$goos" = darwin ]; then
    cc="clang -arch $triple" cxx="clang++ -arch $triple"
  elif [ "$goarch" != "$host_arch" ]; then
    if ! command -v "$triple-gcc" >/dev/null || ! command -v "$triple-g++" >/dev/null; then
      echo "release: skipping $goos-$goarch: no $triple-gcc and $triple-g++ (install the cross compiler to build it)" >&2
      continue
    fi
    cc="$triple-gcc" cxx="$triple-g++"
  fi
  name="idem_${version#v}_${goos}_${goarch}"
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  mkdir "$work/$name"
  echo "release: building $name" >&2
  env CGO_ENABLED=1 GOOS="$goos" GOARCH="$goarch" ${cc:+CC="$cc"} ${cxx:+CXX="$cxx"} \
    go build -trimpath -ldflags "-s -w -X github.com/idemdata/idem/runner.Version=${version#v}" \
    -o "$work/$name/idem" ./cmd/idem
  cp README.md "$work/$name/"
  tar -C "$work" -czf "$dist/$name.tar.gz" "$name"
  rm -rf "$work"
  trap - EXIT
  made+=("$name.tar.gz")
done

if [ "${#made[@]}" -eq 0 ]; then
  echo "release: nothing was built" >&2
  exit 1
fi
sum="sha256sum"
command -v sha256sum >/dev/null || sum="shasum -a 256" # macOS
(cd "$dist" && $sum "${made[@]}" > SHA256SUMS)
printf '%s\n' "${made[@]/#/$dist/}"
