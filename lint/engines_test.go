package lint

// A query is read by the target engine's lexicon, which each engine
// registers: the real engines are linked here.
import (
	_ "github.com/idemdata/idem/engine/clickhouse"
	_ "github.com/idemdata/idem/engine/duckdb"
	_ "github.com/idemdata/idem/engine/mysql"
	_ "github.com/idemdata/idem/engine/postgres"
)
