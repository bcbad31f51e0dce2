package mysql

import (
	"slices"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/sqltext"
)

// lexicon is how MySQL and MariaDB read SQL text, and their functions whose
// value changes from run to run: lint reads a job's query with it, and
// `idem checksum --where` its condition.
var lexicon = sqltext.Lexicon{
	Rules: sqltext.Rules{
		// idem's sessions set NO_BACKSLASH_ESCAPES and ANSI_QUOTES
		// (sqlMode); the server's defaults are the other way, and text is
		// read both ways.
		Backslash:    sqltext.NoUnlessSet,
		DoubleQuoted: sqltext.NoUnlessSet,
		Backtick:     true,
		DashSpace:    true,
		Hash:         true,
		RunComments:  true,
	},
	Funcs: sqltext.NewCatalogue(slices.Concat(
		sqltext.Keywords(sqltext.Clock, "current_timestamp", "current_date", "current_time", "localtime", "localtimestamp",
			"utc_date", "utc_time", "utc_timestamp"),
		sqltext.Named(sqltext.Clock, "now", "sysdate", "curdate", "curtime"),
		// unix_timestamp() is the clock; unix_timestamp(d) converts d.
		[]sqltext.Func{{Name: "unix_timestamp", Kind: sqltext.Clock, Args: []int{0}}},
		// sys_guid, uuid_v4 and uuid_v7 are MariaDB's.
		sqltext.Named(sqltext.Random, "rand", "uuid", "uuid_short", "random_bytes", "sys_guid", "uuid_v4", "uuid_v7"),
		// MariaDB's sequences.
		sqltext.Named(sqltext.Sequence, "nextval", "lastval", "setval"),
		sqltext.Named(sqltext.Session, "connection_id", "last_insert_id", "found_rows", "row_count"),
	)...),
}

// Lexicon is how MySQL and MariaDB read SQL text (engine.Lexer).
func (Dialect) Lexicon() *sqltext.Lexicon { return &lexicon }

var _ engine.Lexer = Dialect{}
