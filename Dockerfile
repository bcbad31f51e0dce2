# The idem image: `docker build -t idem .` (or podman), then
# `docker run --rm -v "$PWD:/work" idem run jobs/orders.yaml --date 2026-11-28`.
#
# Build stage: Go and gcc. DuckDB, the default engine, is linked in with
# cgo, so the build needs a C and C++ toolchain (the golang image has one).
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=1 go build -trimpath \
      -ldflags "-s -w -X github.com/idemdata/idem/runner.Version=${VERSION}" \
      -o /out/idem ./cmd/idem \
 && /out/idem --version

# Final stage: the binary on Debian slim, the release the build stage is on.
# cgo links idem against glibc, libstdc++ and libgcc_s (DuckDB is C++), so
# the base needs glibc: not Alpine (musl) nor a static distroless image.
# Slim also keeps /bin/sh and GNU date, which the scheduling recipes' shell
# lines use (docs/scheduling.md); ca-certificates for TLS to database
# servers and object stores, tzdata for partition.timezone.
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates tzdata libstdc++6 \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --create-home --home-dir /home/idem idem \
 && mkdir /work && chown idem /work
COPY --from=build /out/idem /usr/local/bin/idem
USER idem
WORKDIR /work
ENTRYPOINT ["idem"]
CMD ["--help"]
