package cli_test

import (
	"fmt"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/internal/hostile"
	"github.com/idemdata/idem/internal/s3fake"
)

// objectsJob reads files from one URL into a DuckDB file.
const objectsJob = `idem: 1
job: objects
target:
  url: duckdb:out.duckdb
  table: orders
source:
  files: '%s'
  format: csv
strategy: partition
partition:
  column: day
`

// No access key, secret key, session token or signed URL's signature is
// printed, whatever it holds: not by a run that finds no object, nor by
// one whose store does not answer, nor by status.
func TestObjectCredentialsNeverPrinted(t *testing.T) {
	srv := httptest.NewServer(s3fake.New())
	defer srv.Close()
	t.Setenv("AWS_REGION", "us-east-1")
	for _, pw := range hostile.Passwords {
		dir := t.TempDir()
		// The keys in the environment, then in a signed URL (the keys then
		// hold nothing alike, so each is hidden by its own path).
		for i, files := range []string{
			"s3://idem-creds/none/*.csv?endpoint=" + url.QueryEscape(srv.URL) + "&use_path_style=true",
			"https://127.0.0.1:1/x.csv?X-Amz-Credential=" + url.QueryEscape(pw) + "&X-Amz-Signature=" + url.QueryEscape(pw),
			"https://127.0.0.1:1/x.csv?sv=2024-08-04&sig=" + url.QueryEscape(pw),
		} {
			secret := "plain-secret-0000"
			if i == 0 {
				secret = pw
			}
			t.Setenv("AWS_ACCESS_KEY_ID", "AKIA"+secret)
			t.Setenv("AWS_SECRET_ACCESS_KEY", secret)
			t.Setenv("AWS_SESSION_TOKEN", "FwoG"+secret)
			path := filepath.Join(dir, fmt.Sprintf("job%d.yaml", i))
			require.NoError(t, os.WriteFile(path, []byte(fmt.Sprintf(objectsJob, files)), 0o644))
			code, stdout, stderr := run(t, "run", path, "--date", "2026-11-28", "--verbose")
			require.NotEqual(t, 0, code, stderr)
			out := stdout + stderr
			require.Contains(t, out, "idem: objects partition 2026-11-28: ", "the run says why it failed")
			for _, frag := range []string{"Wk9", "Xy3", pw, url.QueryEscape(pw)} {
				require.NotContains(t, out, frag, "%q leaks in:\n%s", pw, out)
			}
			_, stdout, stderr = run(t, "status", path, "--json")
			require.NotContains(t, stdout+stderr, "Wk9")
		}
	}
}
