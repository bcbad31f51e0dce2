package clickhouse

import (
	"slices"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/sqltext"
)

// lexicon is how ClickHouse (chDB and a server alike) reads SQL text, and
// its functions whose value changes from run to run (system.functions
// marks them not deterministic): lint reads a job's query with it, and
// `idem checksum --where` its condition.
var lexicon = sqltext.Lexicon{
	Rules: sqltext.Rules{
		Backslash:      sqltext.Yes,
		IdentBackslash: true,
		Backtick:       true,
		Dollar:         sqltext.Yes, // heredocs: $tag$…$tag$, any tag
		AnyTag:         true,
		NestedComments: true,
		Hash:           true, // # before a space, and #!
		HashSpace:      true,
		SlashSlash:     true,
	},
	Funcs: sqltext.NewCatalogue(slices.Concat(
		// Called without parentheses too: SELECT now, today.
		sqltext.Keywords(sqltext.Clock, "now", "today", "current_timestamp", "current_date", "curdate"),
		sqltext.Named(sqltext.Clock, "now64", "nowInBlock", "nowInBlock64", "yesterday", "UTCTimestamp", "UTC_timestamp",
			"initialQueryStartTime", "initial_query_start_time", "uptime"),
		sqltext.Named(sqltext.Random, "rand", "rand32", "rand64", "randCanonical", "randConstant", "randUniform",
			"randNormal", "randLogNormal", "randBinomial", "randNegativeBinomial", "randPoisson", "randBernoulli",
			"randExponential", "randChiSquared", "randStudentT", "randFisherF", "randomString", "randomFixedString",
			"randomPrintableASCII", "randomStringUTF8", "fuzzBits", "generateUUIDv4", "generateUUIDv7", "generateULID",
			"generateSnowflakeID", "generateRandomStructure", "dateTimeToUUIDv7", "arrayShuffle", "arrayPartialShuffle",
			"arrayRandomSample"),
		sqltext.Named(sqltext.Sequence, "generateSerialID"),
		// The query's, the session's, and where a row falls in the blocks
		// a run happens to read.
		sqltext.Named(sqltext.Session, "queryID", "query_id", "initialQueryID", "initial_query_id", "currentQueryID",
			"current_query_id", "connectionId", "connection_id", "transactionID", "blockNumber", "blockSize",
			"rowNumberInBlock", "rowNumberInAllBlocks"),
	)...),
}

// Lexicon is how ClickHouse reads SQL text (engine.Lexer).
func (Dialect) Lexicon() *sqltext.Lexicon { return &lexicon }

var _ engine.Lexer = Dialect{}
