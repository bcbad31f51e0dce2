package postgres

import (
	"slices"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/sqltext"
)

// lexicon is how PostgreSQL reads SQL text, and its functions whose value
// changes from run to run: lint reads a job's query with it, and `idem
// checksum --where` its condition.
var lexicon = sqltext.Lexicon{
	Rules: sqltext.Rules{
		// standard_conforming_strings is on by default, and idem leaves it
		// alone; a server may turn it off.
		Backslash:      sqltext.NoUnlessSet,
		EscapeStrings:  true,
		Dollar:         sqltext.Yes,
		NestedComments: true,
	},
	Funcs: sqltext.NewCatalogue(slices.Concat(
		// The clock: of the transaction, the statement, the wall.
		sqltext.Keywords(sqltext.Clock, "current_timestamp", "current_date", "current_time", "localtime", "localtimestamp"),
		sqltext.Named(sqltext.Clock, "now", "clock_timestamp", "statement_timestamp", "transaction_timestamp",
			"timeofday", "pg_postmaster_start_time", "pg_conf_load_time"),
		// age(t) is the interval from t to today; age(a, b) depends on a and b only.
		[]sqltext.Func{{Name: "age", Kind: sqltext.Clock, Args: []int{1}}},
		// uuid-ossp's and pgcrypto's too.
		sqltext.Named(sqltext.Random, "random", "random_normal", "setseed", "gen_random_uuid", "uuidv4", "uuidv7",
			"uuid_generate_v1", "uuid_generate_v1mc", "uuid_generate_v4", "gen_random_bytes", "gen_salt"),
		sqltext.Named(sqltext.Sequence, "nextval", "currval", "lastval", "setval"),
		sqltext.Named(sqltext.Session, "txid_current", "txid_current_if_assigned", "txid_current_snapshot",
			"pg_current_xact_id", "pg_current_xact_id_if_assigned", "pg_current_snapshot", "mxid_age",
			"pg_backend_pid", "inet_client_addr", "inet_client_port", "pg_my_temp_schema",
			"pg_current_wal_lsn", "pg_current_wal_insert_lsn", "pg_current_wal_flush_lsn"),
	)...),
	// Date and time input strings read as the clock: TIMESTAMP 'now',
	// 'today'::date.
	ClockStrings: map[string]string{"now": "now", "today": "today", "tomorrow": "today", "yesterday": "today"},
}

// Lexicon is how PostgreSQL reads SQL text (engine.Lexer).
func (Dialect) Lexicon() *sqltext.Lexicon { return &lexicon }

var _ engine.Lexer = Dialect{}
