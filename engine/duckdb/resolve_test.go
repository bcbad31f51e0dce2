package duckdb_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/duckdb"
)

// Resolve refuses what DuckDB's readers turn into NULL, or into another
// instant, without a word, in zone-aware columns (TIMESTAMPTZ, TIMETZ):
// each refusal names file, line, column and value (engine.BadValue); good
// values, empty fields and UTC names pass.
func TestResolveZonedValues(t *testing.T) {
	db, err := sql.Open("duckdb", "")
	require.NoError(t, err)
	defer db.Close()
	ctx := context.Background()
	dir := t.TempDir()
	for _, c := range []struct {
		typ, text, want string
	}{
		{"TIMETZ", "id,v\n1,10:00:00+01\n2,later\n", `line 3: column "v": "later" is not a time with a UTC offset`},
		{"TIMETZ", "id,v\n1,10:00:00+01\n2,\n", ""},
		{"TIMESTAMPTZ", "id,v\n1,2026-11-28 10:00:00+01\n2,2026-11-28 10:00:00 America/New_York\n", `line 3: column "v": "2026-11-28 10:00:00 America/New_York" names its time zone`},
		{"TIMESTAMPTZ", "id,v\n1,2026-11-28 10:00:00+01\n2,2026-11-28 10:00:00 utc\n3,2026-11-28 10:00:00Z\n", ""},
		{"TIMESTAMP WITH TIME ZONE", "id,v\n1,2026-11-28 10:00:00+01\n2,NULL\n", `line 3: column "v": "NULL" is not a date and time with a UTC offset`},
	} {
		p := filepath.Join(dir, "x.csv")
		require.NoError(t, os.WriteFile(p, []byte(c.text), 0o644))
		_, err := duckdb.Resolve(ctx, db, engine.FileInput{Paths: []string{p}, Format: "csv", Delim: ",", Types: map[string]string{"v": c.typ}})
		if c.want == "" {
			require.NoError(t, err, c.text)
			continue
		}
		var bv *engine.BadValue
		require.ErrorAs(t, err, &bv, c.text)
		require.Contains(t, bv.Msg, p+" "+c.want)
		require.Equal(t, p, bv.File)
		require.Equal(t, 3, bv.Line)
		require.Equal(t, "v", bv.Column)
	}
}
