package source

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLocateEmpty(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := write(t, dir, "a.csv", "id,day\n1,2026-11-28\n2,\n\"3\n3\",2026-11-28\n,2026-11-28\n")
	b := write(t, dir, "b.csv", "id;day\n5;\n")
	j := write(t, dir, "c.jsonl", "{\"id\":1,\"day\":\"2026-11-28\"}\n\n{\"id\":2}\n{\"id\":3,\"day\":null}\n")

	got, err := LocateEmpty([]string{a, b}, "csv", []string{"day"}, 10)
	require.NoError(t, err)
	require.Equal(t, []Location{{a, 3, "2,"}, {b, 2, "5;"}}, got)

	got, err = LocateEmpty([]string{a}, "csv", []string{"id", "day"}, 10)
	require.NoError(t, err)
	require.Equal(t, []Location{{a, 3, "2,"}, {a, 6, ",2026-11-28"}}, got, "a quoted newline counts as a line")

	got, err = LocateEmpty([]string{a, b}, "csv", []string{"day"}, 1)
	require.NoError(t, err)
	require.Len(t, got, 1, "at most limit")

	got, err = LocateEmpty([]string{j}, "jsonl", []string{"day"}, 10)
	require.NoError(t, err)
	require.Equal(t, []Location{{j, 3, `{"id":2}`}, {j, 4, `{"id":3,"day":null}`}}, got)
	require.Equal(t, j+` line 3: {"id":2}`, got[0].String())

	got, err = LocateEmpty([]string{a}, "csv", []string{"nosuch"}, 10)
	require.NoError(t, err)
	require.Empty(t, got)
}

// The JSON reader's report about one line becomes the file, the line and
// what to do, in either of the forms DuckDB prints it (its advice on its
// own line, or after a semicolon); other errors are not its.
func TestJSONReadError(t *testing.T) {
	for _, text := range []string{
		"Invalid Input Error: JSON transform error in file \"/d/x.jsonl\", in line 25001: Failed to cast value to numerical: \"many\"\nTry increasing 'sample_size'",
		"Invalid Input Error: JSON transform error in file \"/d/x.jsonl\", in line 25001: Failed to cast value to numerical: \"many\"; Try increasing 'sample_size'",
	} {
		le := JSONReadError(errors.New(text))
		require.NotNil(t, le, text)
		require.Equal(t, "/d/x.jsonl", le.File)
		require.Equal(t, 25001, le.Line)
		require.Contains(t, le.Error(), `/d/x.jsonl line 25001: a value does not fit the type its column has in the file's first lines (the type the reader gave it): Failed to cast value to numerical: "many"; declare the column's type under columns:`)
		require.NotContains(t, le.Error(), "sample_size")
	}
	le := JSONReadError(errors.New(`JSON transform error in file "/d/x.jsonl", in line 3: Object {"id":1,"id":2} has duplicate key "id"; Try increasing`))
	require.NotNil(t, le)
	require.Equal(t, `/d/x.jsonl line 3: the object names key "id" twice`, le.Error())
	require.Nil(t, JSONReadError(errors.New("Conversion Error: Could not convert string 'x' to INT64")))
}
