package duckdb

import (
	"slices"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/sqltext"
)

// lexicon is how DuckDB reads SQL text (its parser's lexer is PostgreSQL's,
// without standard_conforming_strings to turn off), and its functions
// whose value changes from run to run: lint reads a job's query with it,
// and `idem checksum --where` its condition. DuckDB reads no date string
// as the clock ('now'::timestamp is an error).
var lexicon = sqltext.Lexicon{
	Rules: sqltext.Rules{
		Backslash:      sqltext.No,
		EscapeStrings:  true,
		Dollar:         sqltext.Yes,
		NestedComments: true,
	},
	Funcs: sqltext.NewCatalogue(slices.Concat(
		sqltext.Keywords(sqltext.Clock, "current_timestamp", "current_date", "current_time", "localtime", "localtimestamp"),
		sqltext.Named(sqltext.Clock, "now", "get_current_timestamp", "get_current_time", "current_localtime",
			"current_localtimestamp", "transaction_timestamp", "today"),
		// age(t) is the interval from t to today (ts.age() too); age(a, b)
		// depends on a and b only.
		[]sqltext.Func{{Name: "age", Kind: sqltext.Clock, Args: []int{1}}},
		sqltext.Named(sqltext.Random, "random", "setseed", "uuid", "uuidv4", "uuidv7", "gen_random_uuid"),
		sqltext.Named(sqltext.Sequence, "nextval", "currval"),
		sqltext.Named(sqltext.Session, "current_connection_id", "current_query_id", "current_transaction_id", "txid_current"),
	)...),
}

// Lexicon is how DuckDB reads SQL text (engine.Lexer).
func (Dialect) Lexicon() *sqltext.Lexicon { return &lexicon }

var _ engine.Lexer = Dialect{}
