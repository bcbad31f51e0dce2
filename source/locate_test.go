package source

import (
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
