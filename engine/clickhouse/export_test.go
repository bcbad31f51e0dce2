package clickhouse

// ChTypes is the reader's type mapping, for the external benchmarks.
var ChTypes = chTypes{}

// SetCSVParquet makes this DB read CSV through the embedded reader and
// Parquet even where ClickHouse could parse the files' bytes; for tests.
func (d *DB) SetCSVParquet(on bool) { d.csvParquet = on }
