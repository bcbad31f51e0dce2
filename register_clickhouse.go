//go:build !no_clickhouse

package idem

// Built unless the no_clickhouse tag leaves the engine out of the binary.
import _ "github.com/idemdata/idem/engine/clickhouse" // registers chdb: and clickhouse:// (libchdb.so is loaded at open)
