package job

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A server URL is checked as its engine reads it (the registered
// CheckURL): PostgreSQL's host list, with the password kept out of the
// message.
func TestSplitURLChecksTheEnginesURL(t *testing.T) {
	t.Parallel()
	for _, url := range []string{
		"postgres://adv_u:Qz7a/Wk9b@Xy3c@127.0.0.1:notaport/db",
		"postgres://adv_u:Qz7a/Wk9b@Xy3c@127.0.0.1:99999/db",
		"postgresql://adv_u:Qz7a/Wk9b@Xy3c@[::1/db",
	} {
		_, _, err := SplitURL(url)
		require.ErrorIs(t, err, ErrURL, url)
		for _, leak := range []string{"Qz7a", "Wk9b", "Xy3c"} {
			require.NotContains(t, err.Error(), leak)
		}
	}
	_, _, err := SplitURL("postgres://u:pw@h:5432,h2:5433/db")
	require.NoError(t, err)
}
