package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine/enginetest"
)

// The idem command of every recipe in docs/scheduling.md runs against a
// real job, so the page cannot drift from the binary. The orchestrators
// are not needed: their templates are rendered here ({{ ds }}, Dagster's
// partition key) and cron's and the CronJob's shell lines run in sh.
func TestSchedulingRecipes(t *testing.T) {
	doc, err := os.ReadFile("../../docs/scheduling.md")
	require.NoError(t, err)
	recipes := map[string]string{}
	for _, m := range regexp.MustCompile("(?s)<!-- recipe: ([a-z0-9-]+) -->\n```[a-z]*\n(.*?)```").FindAllStringSubmatch(string(doc), -1) {
		recipes[m[1]] = m[2]
	}
	require.ElementsMatch(t, []string{"cron", "airflow-bash", "airflow-k8s", "airflow-status", "dagster", "k8s-cronjob", "backfill"},
		keys(recipes), "every recipe is tested")

	dir := t.TempDir()
	yesterday := time.Now().UTC().AddDate(0, 0, -1).Format("2006-01-02")
	days := []string{yesterday}
	for d := 1; d <= 31; d++ {
		days = append(days, fmt.Sprintf("2026-10-%02d", d))
	}
	for i, d := range days {
		p := filepath.Join(dir, "in", d+".csv")
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, fmt.Appendf(nil, "order_id,created_at,amount\n%d,%s 10:00:00,1.50\n", i+1, d), 0o644))
	}
	jobPath := filepath.Join(dir, "orders.yaml")
	require.NoError(t, os.WriteFile(jobPath, []byte(`idem: 1
job: orders_daily
target:
  url: duckdb:warehouse.duckdb
  table: orders
source:
  files: in/{{ date }}.csv
strategy: partition
partition:
  column: created_at
`), 0o644))

	bin := enginetest.Binary(t)
	const ds = "2026-10-07"
	render := func(s string) string {
		s = strings.ReplaceAll(s, "/etc/idem/jobs/orders.yaml", jobPath)
		s = strings.ReplaceAll(s, "{{ ds }}", ds)
		return strings.ReplaceAll(s, "{{ macros.ds_add(ds, -6) }}", "2026-10-01")
	}
	list := func(s string) []string { // a Python list or YAML flow sequence of strings
		var out []string
		require.NoError(t, json.Unmarshal([]byte(render(s)), &out), s)
		return out
	}
	find := func(name, re string) string {
		m := regexp.MustCompile(re).FindStringSubmatch(recipes[name])
		require.NotNil(t, m, "%s: %s", name, re)
		return m[1]
	}
	// Each recipe as the argv its orchestrator would run, in the order a
	// deployment would: the backfill first, then the daily forms (which
	// skip what it loaded), then the check.
	cases := []struct {
		name string
		argv []string
	}{
		{"backfill", []string{"sh", "-c", render(find("backfill", `(?m)^(idem backfill .*)$`))}},
		{"cron", []string{"sh", "-c", render(strings.ReplaceAll(find("cron", `(?m)^(?:\S+ ){5}(idem .*?)(?: >>.*)?$`), `\%`, "%"))}},
		{"airflow-bash", []string{"sh", "-c", render(find("airflow-bash", `bash_command="([^"]*)"`))}},
		{"airflow-k8s", append(list(find("airflow-k8s", `cmds=(\[.*\])`)), list(find("airflow-k8s", `arguments=(\[.*\])`))...)},
		{"dagster", list(strings.ReplaceAll(find("dagster", `subprocess\.run\((\[.*?\])`), "context.partition_key", `"`+ds+`"`))},
		{"k8s-cronjob", list(find("k8s-cronjob", `command: (\[.*\])`))},
		{"airflow-status", []string{"sh", "-c", render(find("airflow-status", `bash_command="([^"]*)"`))}},
	}
	for _, c := range cases {
		if c.argv[0] == "idem" { // exec looks the name up in this process's PATH
			c.argv[0] = bin
		}
		cmd := exec.Command(c.argv[0], c.argv[1:]...)
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s: %q\n%s", c.name, c.argv, out)
		t.Logf("%s: %q\n%s", c.name, c.argv, out)
	}
	// The daily forms loaded yesterday, which the backfill did not cover.
	code, _, stderr := run(t, "status", jobPath, "--from", yesterday, "--to", yesterday)
	require.Equal(t, 0, code, stderr)
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
