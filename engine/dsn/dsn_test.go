package dsn

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/internal/hostile"
)

// hostilePasswords are the shared ones and one ending in a quote.
var hostilePasswords = append(slices.Clone(hostile.Passwords), `Qz7G"Wk9H\Xy3I'`)

var fragmentRE = regexp.MustCompile(`[A-Za-z0-9]{4,}`)

// fragments are the pieces of a password that must not appear in output:
// its runs of letters and digits, as typed and decoded.
func fragments(typed string) []string {
	var out []string
	for _, s := range []string{typed, decodeLenient(typed)} {
		for _, f := range fragmentRE.FindAllString(s, -1) {
			if strings.Contains(f, "Qz7") || strings.Contains(f, "Wk9") || strings.Contains(f, "Xy3") {
				out = append(out, f)
			}
		}
	}
	return out
}

func requireNoLeak(t *testing.T, text, typed string) {
	t.Helper()
	for _, f := range fragments(typed) {
		require.NotContains(t, text, f, "password %q leaks", typed)
	}
}

func TestParseServerURLHostilePasswords(t *testing.T) {
	t.Parallel()
	for _, pw := range hostilePasswords {
		t.Run(pw, func(t *testing.T) {
			t.Parallel()
			u, err := ParseServerURL("postgres://adv_u:" + pw + "@127.0.0.1:5432/db?sslmode=disable")
			require.NoError(t, err)
			require.Equal(t, "adv_u", u.User)
			require.Equal(t, decodeLenient(pw), u.Password)
			require.True(t, u.HasPassword)
			require.Equal(t, "127.0.0.1:5432/db?sslmode=disable", u.Rest)
			require.Equal(t, "postgres://adv_u@127.0.0.1:5432/db?sslmode=disable", u.WithoutPassword())

			for _, url := range []string{
				"postgres://adv_u:" + pw + "@127.0.0.1:5432/db",
				"postgresql://adv_u:" + pw + "@[::1]:5432,db2:5433/db?sslmode=disable",
				"mysql://adv_u:" + pw + "@tcp(db:3306)/w",
				"sqlserver://adv_u:" + pw + "@db/w",
			} {
				got := Redact(url)
				requireNoLeak(t, got, pw)
				require.Contains(t, got, "adv_u:xxxxx@", "the user name stays")
			}

			// Unparsable: exit 2 material, and the error does not show it.
			for _, url := range []string{
				"postgres://adv_u:" + pw + "@127.0.0.1:notaport/db",
				"postgres://adv_u:" + pw + "@127.0.0.1:99999/db",
				"postgres://adv_u:" + pw + "@[::1/db",
			} {
				u, err := ParseServerURL(url)
				require.NoError(t, err, url)
				err = u.CheckHosts()
				require.ErrorIs(t, err, ErrURL, url)
				requireNoLeak(t, err.Error(), pw)
				require.Contains(t, err.Error(), "adv_u:xxxxx@", "the user name stays")
			}
		})
	}
}

func TestParseServerURL(t *testing.T) {
	t.Parallel()
	u, err := ParseServerURL("postgres://h/db")
	require.NoError(t, err)
	require.Equal(t, ServerURL{Scheme: "postgres", Rest: "h/db"}, u)
	require.Equal(t, "postgres://h/db", u.WithoutPassword())

	u, err = ParseServerURL("postgres://me%40corp@h/db")
	require.NoError(t, err)
	require.Equal(t, "me@corp", u.User)
	require.False(t, u.HasPassword)
	require.Equal(t, "postgres://me%40corp@h/db", u.WithoutPassword())

	// An Azure-style user name with an unencoded '@'.
	u, err = ParseServerURL("postgres://me@server:pw@server.example:5432/db")
	require.NoError(t, err)
	require.Equal(t, "me@server", u.User)
	require.Equal(t, "pw", u.Password)
	require.Equal(t, "server.example:5432/db", u.Rest)

	u, err = ParseServerURL("postgres://u:@h/db")
	require.NoError(t, err)
	require.True(t, u.HasPassword)
	require.Empty(t, u.Password)

	for _, bad := range []string{"postgres://h\x00/db", "postgres:/h/db", "://h/db"} {
		_, err := ParseServerURL(bad)
		require.ErrorIs(t, err, ErrURL, "%q", bad)
	}
	// The host list is the engine's to check: ParseServerURL leaves it.
	for _, bad := range []string{"postgres://h:x/db", "postgres://h:0/db", "postgres://a,b:x/db", "postgres://[::1", "postgres://[::1]x/db", "postgres://h o/db"} {
		u, err := ParseServerURL(bad)
		require.NoError(t, err, "%q", bad)
		require.ErrorIs(t, u.CheckHosts(), ErrURL, "%q", bad)
	}
	for _, good := range []string{"postgres://h:5432/db", "postgres://a:1,b:2/db", "postgres://[::1]:5432/db", "postgres:///db", "postgres://h/db?port=5433"} {
		u, err := ParseServerURL(good)
		require.NoError(t, err, good)
		require.NoError(t, u.CheckHosts(), good)
	}
}

func TestRedactor(t *testing.T) {
	t.Parallel()
	for _, pw := range hostilePasswords {
		t.Run(pw, func(t *testing.T) {
			t.Parallel()
			url := "postgres://adv_u:" + pw + "@127.0.0.1:5432/db"
			r := NewRedactor("run", "job.yaml", url)
			dec := decodeLenient(pw)
			// Every spelling a message, a JSON line or a log line could give.
			for _, msg := range []string{
				"failed: password " + pw + " rejected",
				"failed: password " + dec + " rejected",
				fmt.Sprintf("failed: %q", dec),
				fmt.Sprintf(`{"error":%q}`, dec),
				fmt.Sprintf("level=DEBUG msg=x url=%q", url),
				"cannot parse `" + url + "`: invalid port",
				"dial tcp: lookup " + dec + "@127.0.0.1: no such host",
			} {
				requireNoLeak(t, r.String(msg), pw)
			}
			err := r.Error(fmt.Errorf("connecting: %w", errors.New("password "+dec)))
			requireNoLeak(t, err.Error(), pw)

			var b strings.Builder
			w := r.Writer(&b)
			n, werr := fmt.Fprintf(w, "%s\n", dec)
			require.NoError(t, werr)
			require.Equal(t, len(dec)+1, n)
			requireNoLeak(t, b.String(), pw)
		})
	}
}

func TestRedactorKeepsOtherText(t *testing.T) {
	t.Parallel()
	r := NewRedactor("postgres://u:longsecret@h/db", "--date", "2026-11-28")
	require.Equal(t, "connecting to postgres://u:xxxxx@h/db: role \"me@corp\" does not exist",
		r.String("connecting to postgres://u:xxxxx@h/db: role \"me@corp\" does not exist"))
	require.Equal(t, "x xxxxx y", r.String("x longsecret y"))
	// JSON with no white space after a masked URL keeps its structure.
	require.Equal(t, `{"error":"postgres://u:xxxxx@h/db","job":"me@corp"}`,
		r.String(`{"error":"postgres://u:xxxxx@h/db","job":"me@corp"}`))
	// An unknown password in a URL is still masked.
	require.Equal(t, "at postgres://v:xxxxx@h/db now", r.String("at postgres://v:other@h/db now"))
	require.Equal(t, "user=u password=xxxxx host=h", r.String("user=u password=other host=h"))
	var nilR *Redactor
	require.Equal(t, "plain", nilR.String("plain"))
}

func TestSecrets(t *testing.T) {
	t.Parallel()
	require.ElementsMatch(t, []string{"p%40ss", "p@ss"}, Secrets("postgres://u:p%40ss@h/db"))
	require.Contains(t, Secrets("postgres://u@h/db?sslmode=disable&password=s%2Fx&x=1"), "s/x")
	require.Empty(t, Secrets("postgres://u@h/db"))
	require.Empty(t, Secrets("duckdb:w.duckdb"))
}

func TestRedact(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
	}{
		{"postgres://idem:secret@db:5432/w", "postgres://idem:xxxxx@db:5432/w"},
		{"postgresql://idem:s3cr%40t@db/w?sslmode=require", "postgresql://idem:xxxxx@db/w?sslmode=require"},
		{"mysql://root:pw@tcp(db:3306)/w", "mysql://root:xxxxx@tcp(db:3306)/w"},
		{"postgres://:secret@db/w", "postgres://:xxxxx@db/w"},
		{"postgres://idem:@db/w", "postgres://idem:xxxxx@db/w"},
		{"postgres://idem@db/w", "postgres://idem@db/w"},
		{"postgres://db:5432/w", "postgres://db:5432/w"},
		{"postgres://db/w?user=idem&password=secret", "postgres://db/w?user=idem&password=xxxxx"},
		{"postgres://db/w?password=secret&sslmode=disable", "postgres://db/w?password=xxxxx&sslmode=disable"},
		{"postgres://db/w?sslmode=require&sslpassword=keypw", "postgres://db/w?sslmode=require&sslpassword=xxxxx"},
		{"postgres://db/w?PASSWORD=secret", "postgres://db/w?PASSWORD=xxxxx"},
		{"postgres://u:pw1@db/w?password=secret", "postgres://u:xxxxx@db/w?password=xxxxx"},
		{"postgres://db/w?password_hint=x", "postgres://db/w?password_hint=x"},
		{"host=db user=idem password=secret dbname=w", "host=db user=idem password=xxxxx dbname=w"},
		{"password=secret", "password=xxxxx"},
		{"duckdb:warehouse.duckdb", "duckdb:warehouse.duckdb"},
		{"duckdb:password=notreally.duckdb", "duckdb:password=notreally.duckdb"},
		{"duckdb::memory:", "duckdb::memory:"},
		{"", ""},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			got := Redact(tc.in)
			require.Equal(t, tc.want, got)
			for _, secret := range []string{"secret", "s3cr", "pw@", "keypw"} {
				require.NotContains(t, got, secret)
			}
		})
	}
}
