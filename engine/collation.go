package engine

// TextComparison is an optional group of an engine's SQL (SQL.Text, nil
// where text always compares byte for byte). On MySQL a column's
// collation decides which texts are equal, and a unique index follows it;
// idem tells keys apart byte for byte, as every engine compares text, so a
// key column whose collation ignores case, accents or trailing spaces makes
// keys idem keeps apart one key to the table. The tables idem creates get
// a bytewise collation; for one it did not create, `idem lint --target`
// reads the key columns' collations and says which to change.
type TextComparison interface {
	// KeyCollations selects, for each of cols of t that holds text, its
	// name, character set, collation, type and whether it is nullable
	// ("YES" or "NO"), in the table's column order.
	KeyCollations(t Table, cols []string) (string, []any)
	// Ignores says what a collation ignores when it compares text: ""
	// when it compares byte for byte.
	Ignores(collation string) string
	// BytewiseDDL is the statement a user runs to give column col of t
	// (its type typ, in character set charset) a bytewise collation,
	// keeping its nullability.
	BytewiseDDL(t Table, col, charset, typ string, nullable bool) string
}
