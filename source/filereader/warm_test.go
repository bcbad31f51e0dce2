package filereader

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine"
)

// warmed starts a warm-up of in, waits for it to finish, and stops it when
// the test ends.
func warmed(t *testing.T, in engine.FileInput) *warmUp {
	t.Helper()
	stop := Warm(in)
	t.Cleanup(stop)
	w := warmFor(in)
	require.NotNil(t, w, "the warm-up of in is current")
	return w
}

func csvInput(p string, types map[string]string) engine.FileInput {
	return engine.FileInput{Paths: []string{p}, Format: "csv", Delim: ";", Types: types}
}

func TestWarmAnswersAsWithout(t *testing.T) {
	p := writeFile(t, t.TempDir(), "a.csv", "id;day;note;amount\n1;2026-01-02;x;1.50\n2;2026-01-03;;2.25\n")
	in := csvInput(p, map[string]string{"amount": "DECIMAL(12,2)"})
	rd := openReader(t)
	cold, err := rd.DescribeSample(t.Context(), in, testTypes{})
	require.NoError(t, err)
	coldCSV, err := cold.CSV(t.Context())
	require.NoError(t, err)
	require.Nil(t, cold.warm)

	w := warmed(t, in)
	require.NotNil(t, w.read, "the warm-up described the file")
	require.NotNil(t, w.sniff, "and sniffed it")
	hot, err := rd.DescribeSample(t.Context(), in, testTypes{})
	require.NoError(t, err)
	require.Same(t, w, hot.warm, "the description is the warm-up's")
	require.Equal(t, colTypes(cold.Columns), colTypes(hot.Columns))
	require.Equal(t, []string{"id:BIGINT>BIGINT", "day:DATE>DATE", "note:VARCHAR>VARCHAR", "amount:DECIMAL(12,2)>DECIMAL(12,2)"}, colTypes(hot.Columns))
	hotCSV, err := hot.CSV(t.Context())
	require.NoError(t, err)
	require.Equal(t, coldCSV, hotCSV)
	require.Equal(t, ";", hotCSV.Delim)
}

// A file that changed after the warm-up read it is described again: its
// answers are for the bytes it saw.
func TestWarmFileChangedSince(t *testing.T) {
	dir := t.TempDir()
	for name, change := range map[string]func(p string){
		"grown": func(p string) {
			require.NoError(t, os.WriteFile(p, []byte("id;note\nx1;a\n2;b\n"), 0o644))
		},
		"same size, newer": func(p string) {
			require.NoError(t, os.WriteFile(p, []byte("id;note\nx;a\n"), 0o644))
			later := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
			require.NoError(t, os.Chtimes(p, later, later))
		},
	} {
		t.Run(name, func(t *testing.T) {
			p := writeFile(t, dir, name+".csv", "id;note\n1;a\n")
			in := csvInput(p, nil)
			w := warmed(t, in)
			require.Equal(t, "BIGINT", w.read[0].Type)
			change(p)
			rd := openReader(t)
			src, err := rd.DescribeSample(t.Context(), in, testTypes{})
			require.NoError(t, err)
			require.Equal(t, "id:VARCHAR>VARCHAR", colTypes(src.Columns)[0], "described from the file as it is now")
			_, ok := w.sniffed(p, ";")
			require.False(t, ok, "nor is its sniff taken")
		})
	}
}

// Another input is described on its own; a stopped warm-up is no one's.
func TestWarmOtherInputAndStop(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.csv", "id;note\n1;a\n")
	b := writeFile(t, dir, "b.csv", "id;note\nx;a\n")
	stop := Warm(csvInput(a, nil))
	require.Nil(t, warmFor(csvInput(b, nil)), "b is not what was warmed")
	require.Nil(t, warmFor(csvInput(a, map[string]string{"id": "VARCHAR"})), "nor a with other types")
	rd := openReader(t)
	src, err := rd.DescribeSample(t.Context(), csvInput(b, nil), testTypes{})
	require.NoError(t, err)
	require.Nil(t, src.warm)
	require.Equal(t, "id:VARCHAR>VARCHAR", colTypes(src.Columns)[0])

	noop := Warm(csvInput(b, nil))
	noop() // one warm-up at a time: a's is still current
	require.NotNil(t, warmFor(csvInput(a, nil)))
	stop()
	require.Nil(t, warmFor(csvInput(a, nil)), "a stopped warm-up answers nothing")
}
