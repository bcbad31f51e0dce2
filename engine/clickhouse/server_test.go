package clickhouse_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem"
	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/clickhouse"
	"github.com/idemdata/idem/engine/enginetest"
	"github.com/idemdata/idem/job"
)

// What no server is needed for: the server path's URLs, options,
// settings, errors and statements. The conformance suite runs on a server
// with IDEM_TEST_CLICKHOUSE (TestServerConformance).

const secret = "S3cr3t/p@ss"

func TestServerSchemesRegistered(t *testing.T) {
	t.Parallel()
	for _, scheme := range []string{"clickhouse", "clickhouses"} {
		d, ok := engine.Lookup(scheme)
		require.True(t, ok, scheme)
		require.Equal(t, "clickhouse", d.Name)
		require.False(t, d.File)
		require.False(t, d.ConcurrentWriters, "a server takes no lock: a backfill runs partitions in turn")
		tu, err := job.ParseTargetURL(scheme + "://u:" + secret + "@h:9000/db")
		require.NoError(t, err)
		require.Equal(t, "clickhouse", tu.Driver.Name)
	}
	require.False(t, idem.ConcurrentWriters("clickhouse://h/db"))
	_, err := job.ParseTargetURL("clickhouse:h/db")
	require.ErrorContains(t, err, "clickhouse://…")
}

func TestServerOptions(t *testing.T) {
	t.Parallel()
	opt, err := clickhouse.ServerOptions("clickhouse://adv_u:"+secret+"@ch.example:9001/sales?dial_timeout=3s&max_execution_time=60", time.Minute, false)
	require.NoError(t, err)
	require.Equal(t, []string{"ch.example:9001"}, opt.Addr)
	require.Equal(t, "adv_u", opt.Auth.Username)
	require.Equal(t, secret, opt.Auth.Password)
	require.Equal(t, "sales", opt.Auth.Database)
	require.Nil(t, opt.TLS)
	require.Equal(t, 3*time.Second, opt.DialTimeout)
	require.Equal(t, 60, opt.Settings["max_execution_time"], "other parameters are server settings")
	for name, v := range clickhouse.SessionSettings() {
		require.Equal(t, v, opt.Settings[name], name)
	}
	require.NotContains(t, opt.Settings, "readonly")
	require.False(t, opt.Debug)
	require.Nil(t, opt.Logger)

	// Defaults: the native port, user default, database default; TLS on
	// clickhouses:// at 9440; idem's settings win over the URL's.
	opt, err = clickhouse.ServerOptions("clickhouse://10.0.0.1?session_timezone=Europe/Berlin&final=0", time.Second, true)
	require.NoError(t, err)
	require.Equal(t, []string{"10.0.0.1:9000"}, opt.Addr)
	require.Equal(t, "default", opt.Auth.Username)
	require.Empty(t, opt.Auth.Password)
	require.Equal(t, "default", opt.Auth.Database)
	require.Equal(t, "UTC", opt.Settings["session_timezone"])
	require.Equal(t, 1, opt.Settings["final"])
	require.Equal(t, 2, opt.Settings["readonly"], "a read-only open")
	require.Equal(t, time.Second, opt.DialTimeout, "bounded by the lock timeout")

	opt, err = clickhouse.ServerOptions("clickhouses://u@[::1]/db?skip_verify=true", time.Hour, false)
	require.NoError(t, err)
	require.Equal(t, []string{"[::1]:9440"}, opt.Addr)
	require.NotNil(t, opt.TLS)
	require.True(t, opt.TLS.InsecureSkipVerify)
	require.Equal(t, time.Minute, opt.DialTimeout)
	opt, err = clickhouse.ServerOptions("clickhouse://u@h/db?secure=true", time.Hour, false)
	require.NoError(t, err)
	require.NotNil(t, opt.TLS)
	require.Equal(t, []string{"h:9000"}, opt.Addr)

	// A password given as a parameter is one too.
	opt, err = clickhouse.ServerOptions("clickhouse://h/db?username=x&password=pw%2Fq", time.Hour, false)
	require.NoError(t, err)
	require.Equal(t, "x", opt.Auth.Username)
	require.Equal(t, "pw/q", opt.Auth.Password)
}

// Every URL error names the URL with its password hidden, and is a
// malformed-URL error (exit 2).
func TestServerURLErrorsHidePassword(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ url, msg string }{
		{"clickhouse://adv_u:" + secret + "@h:notaport/db", "not a number"},
		{"clickhouse://adv_u:" + secret + "@h:0/db", "not a number"},
		{"clickhouse://adv_u:" + secret + "@/db", "names no host"},
		{"clickhouse://adv_u:" + secret + "@a,b/db", "alt_hosts"},
		{"clickhouse://adv_u:" + secret + "@h/db/x", "cannot hold '/'"},
		{"clickhouse://adv_u:" + secret + "@h/db?debug=true", "idem's to set"},
		{"clickhouse://adv_u:" + secret + "@h/db?compress_level=x", "compress_level"},
		{"clickhouse://adv_u:" + secret + "@h/db?tls_server_name=n", "secure=true"},
		{"clickhouse://h/db?password=S3cr3t%2Fp%40ss&compress_level=x", "compress_level"},
	} {
		_, err := clickhouse.OpenServer(context.Background(), c.url, time.Second, false)
		require.ErrorIs(t, err, job.ErrURL, c.url)
		require.ErrorContains(t, err, c.msg, c.url)
		require.NotContains(t, err.Error(), "S3cr3t", c.url)
		_, err = idem.Open(context.Background(), c.url, t.TempDir(), time.Second)
		require.ErrorIs(t, err, idem.ErrTarget, c.url)
		require.NotContains(t, err.Error(), "S3cr3t", c.url)
	}
}

// closedPort is a local port nothing listens on.
func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

// A server that cannot be reached is "try again later" (exit 75), with
// the host named and the password hidden; the binary needs no
// libchdb.so for it.
func TestServerUnreachableIsTempFail(t *testing.T) {
	t.Parallel()
	addr := closedPort(t)
	url := "clickhouse://adv_u:" + secret + "@" + addr + "/db"
	_, err := clickhouse.OpenServer(t.Context(), url, time.Second, false)
	require.ErrorIs(t, err, engine.ErrUnavailable)
	require.ErrorContains(t, err, "clickhouse://adv_u:xxxxx@"+addr+"/db")
	require.ErrorContains(t, err, "try again later")
	require.NotContains(t, err.Error(), "S3cr3t")

	noLib := []string{"IDEM_CHDB_LIB=", "CHDB_LIB_PATH=", "XDG_CACHE_HOME=" + t.TempDir(), "LD_LIBRARY_PATH="}
	code, stdout, stderr := enginetest.RunBinary(t, noLib, "checksum", url, "t")
	require.Equal(t, 75, code, stderr)
	require.Contains(t, stderr, addr)
	require.NotContains(t, stdout+stderr, "S3cr3t")
	require.NotContains(t, stderr, "libchdb")

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "orders.csv"), []byte("id,day\n1,2026-11-28\n"), 0o644))
	jobFile := filepath.Join(dir, "job.yaml")
	require.NoError(t, os.WriteFile(jobFile, []byte("idem: 1\njob: orders\ntarget:\n  url: '"+url+
		"'\n  table: orders\nsource:\n  files: orders.csv\nstrategy: partition\npartition:\n  column: day\n"), 0o644))
	for _, args := range [][]string{
		{"run", jobFile, "--date", "2026-11-28", "--as-of", "2026-12-01T00:00:00Z"},
		{"plan", jobFile, "--date", "2026-11-28", "--as-of", "2026-12-01T00:00:00Z"},
		{"status", jobFile},
	} {
		code, stdout, stderr = enginetest.RunBinary(t, noLib, args...)
		require.Equal(t, 75, code, "%v: %s", args, stderr)
		require.Contains(t, stderr, addr, args)
		require.NotContains(t, stdout+stderr, "S3cr3t", args)
	}
}

// A peer that is no ClickHouse server (it hangs up, or answers with
// garbage) fails the open; no message shows the password.
func TestServerBadPeerHidesPassword(t *testing.T) {
	t.Parallel()
	for _, reply := range []string{"", "HTTP/1.1 400 Bad Request\r\n\r\n" + secret} {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				c.Write([]byte(reply))
				c.Close()
			}
		}()
		url := "clickhouse://adv_u:" + secret + "@" + l.Addr().String() + "/db"
		_, err = clickhouse.OpenServer(t.Context(), url, time.Second, false)
		require.Error(t, err)
		require.NotContains(t, err.Error(), "S3cr3t", "reply %q", reply)
		require.Contains(t, err.Error(), l.Addr().String())
		l.Close()
	}
}

// A partition run on a server builds its partition in a table of its
// own partition and swaps it in with REPLACE PARTITION; a target
// without a partition key is copied and exchanged whole, as on chDB.
func TestServerPartitionStatements(t *testing.T) {
	t.Parallel()
	var s *clickhouse.Server
	target := engine.Table{Schema: "sales", Name: "orders"}
	x := s.ExchangeTable(target, "2026-11-28")
	require.Equal(t, engine.Table{Schema: "sales", Name: "orders__idem_part_2026-11-28"}, x)
	require.NotEqual(t, x, s.ExchangeTable(target, "2026-11-29"), "partitions of one table build apart")
	long := engine.Table{Schema: "sales", Name: strings.Repeat("o", 60)}
	lx := s.ExchangeTable(long, "2026-11-28T13")
	require.LessOrEqual(t, len(lx.Name), engine.MaxIdentBytes, "any target's name fits")
	require.True(t, strings.HasSuffix(lx.Name, "__idem_part_2026-11-28T13"), lx.Name)
	require.NotEqual(t, lx, s.ExchangeTable(engine.Table{Schema: "sales", Name: strings.Repeat("o", 61)}, "2026-11-28T13"))
	at := s.PartitionBy("toDate('2026-11-28')", engine.KindDate, "day", "")
	require.Equal(t, []string{`CREATE TABLE "sales"."orders__idem_part_2026-11-28" AS "sales"."orders"`}, s.BuildPartition(x, target, at))
	require.Equal(t, []string{`ALTER TABLE "sales"."orders" REPLACE PARTITION tuple(` + at + `) FROM "sales"."orders__idem_part_2026-11-28"`},
		s.ReplacePartition(target, x, at))
	var chdb *clickhouse.DB
	require.Equal(t, chdb.BuildPartition(x, target, ""), s.BuildPartition(x, target, ""))
	require.Equal(t, chdb.ReplacePartition(target, x, ""), s.ReplacePartition(target, x, ""))
	require.Equal(t, chdb.Swap(target, x, true), s.Swap(target, x, true))
	release, err := s.Lock(t.Context(), nil, engine.LockScope{Table: target}, time.Nanosecond)
	require.NoError(t, err, "a server takes no lock")
	release()
	require.True(t, strings.HasPrefix(s.Drop(x), "DROP TABLE IF EXISTS"))
}

// A connection that ends under a run is ErrConnLost (exit 1, run it
// again); a server's exception is left as it is.
func TestServerInterpret(t *testing.T) {
	t.Parallel()
	var s clickhouse.Server
	lost := s.Interpret(&net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded})
	require.ErrorIs(t, lost, engine.ErrConnLost)
	require.ErrorContains(t, lost, "old partition or the new one")
	other := os.ErrPermission
	require.Equal(t, other, s.Interpret(other))
}
