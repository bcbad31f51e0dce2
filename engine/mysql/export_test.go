package mysql

import "github.com/idemdata/idem/engine"

// RowText is the text each row's hash is taken of; for tests.
func (d Dialect) RowText(cols []engine.Column) string { return d.rowText(cols) }
