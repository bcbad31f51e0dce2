package clickhouse

import "github.com/idemdata/idem/engine/clickhouse/internal/chdb"

// Library returns the path of libchdb.so that a chdb: target would load,
// or an error saying where it was looked for and how to fetch it.
func Library() (string, error) { return chdb.Find() }
