package mysql

import "github.com/idemdata/idem/engine"

// SetCSVRows makes this DB send CSV as rows read by the embedded reader
// even where LOAD DATA could parse the files' bytes; for tests.
func (d *DB) SetCSVRows(rows bool) { d.csvRows = rows }

// RowText is the text each row's hash is taken of; for tests.
func (d Dialect) RowText(cols []engine.Column) string { return d.rowText(cols) }
