package clickhouse

// ChTypes is the reader's type mapping, for the external benchmarks.
var ChTypes = chTypes{}
