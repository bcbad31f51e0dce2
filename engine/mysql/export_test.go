package mysql

// SetCSVRows makes this DB send CSV as rows read by the embedded reader
// even where LOAD DATA could parse the files' bytes; for tests.
func (d *DB) SetCSVRows(rows bool) { d.csvRows = rows }
