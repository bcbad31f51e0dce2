package benchcli

import (
	"bufio"
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"gocloud.dev/blob"
	_ "gocloud.dev/blob/s3blob" // s3:// URLs
)

// s3Store is the local S3-compatible server scenario 6 reads from
// (internal/tools/s3server, a process of its own), and its endpoint.
type s3Store struct {
	cmd      *exec.Cmd
	endpoint string
}

// startS3 builds and starts the test S3 server on a free port, with the
// keys idem and the upload use in the environment.
func (v *env) startS3(ctx context.Context) (*s3Store, error) {
	bin := filepath.Join(v.work, "s3server")
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/idemdata/idem/internal/tools/s3server").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build s3server: %w\n%s", err, out)
	}
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	_, endpoint, ok := strings.Cut(strings.TrimSpace(line), "listening on ")
	if err != nil || !ok {
		cmd.Process.Kill()
		cmd.Wait()
		return nil, fmt.Errorf("s3server said %q: %v", line, err)
	}
	for k, val := range map[string]string{"AWS_ACCESS_KEY_ID": "idembench", "AWS_SECRET_ACCESS_KEY": "idembench-secret", "AWS_REGION": "us-east-1"} {
		os.Setenv(k, val)
	}
	return &s3Store{cmd: cmd, endpoint: endpoint}, nil
}

func (s *s3Store) stop() {
	s.cmd.Process.Kill()
	s.cmd.Wait()
}

// upload puts a local file into the bucket under key and returns its
// s3:// URL for a job.
func (s *s3Store) upload(ctx context.Context, bucket, key, file string) (string, error) {
	q := "?endpoint=" + url.QueryEscape(s.endpoint) + "&use_path_style=true"
	b, err := blob.OpenBucket(ctx, "s3://"+bucket+q)
	if err != nil {
		return "", err
	}
	defer b.Close()
	f, err := os.Open(file)
	if err != nil {
		return "", err
	}
	defer f.Close()
	w, err := b.NewWriter(ctx, key, nil)
	if err != nil {
		return "", err
	}
	if _, err := w.ReadFrom(f); err != nil {
		w.Close()
		return "", err
	}
	if err := w.Close(); err != nil {
		return "", err
	}
	return "s3://" + bucket + "/" + key + q, nil
}

// objectLoad is scenario 6: the CSV load of scenario 1 with the file in
// the local S3-compatible server rather than on local disk (baseline: the
// same job reading the local file), then the unchanged rerun of each
// (idem reads no object bytes; the local rerun hashes the file).
func (v *env) objectLoad(ctx context.Context) (rows []Row, err error) {
	n := v.cfg.Rows
	file, err := v.loadFile(ctx, n, "csv")
	if err != nil {
		return nil, err
	}
	s3, err := v.startS3(ctx)
	if err != nil {
		return nil, err
	}
	defer s3.stop()
	obj, err := s3.upload(ctx, "idem-bench", "orders/"+filepath.Base(file), file)
	if err != nil {
		return nil, err
	}
	jobs := map[string]string{}
	for name, src := range map[string]string{"s6_s3": obj, "s6_local": file} {
		t, err := v.target(ctx, strings.ReplaceAll(name, "_", "-"))
		if err != nil {
			return nil, err
		}
		if jobs[name], err = v.job(name, t, "orders", src, "partition", false); err != nil {
			return nil, err
		}
	}
	load := v.row("6 s3 csv load", "the same job reading the file from local disk", n)
	rerun := v.row("6 s3 unchanged rerun", "the unchanged rerun of the local file's job", n)
	var li, lb, ri, rb []sample
	for k := range v.cfg.Repeat {
		for _, m := range []struct {
			job  string
			into *[]sample
		}{{jobs["s6_s3"], &li}, {jobs["s6_local"], &lb}} {
			s, err := v.runIdem(ctx, m.job, true, loaded(n))
			if err != nil {
				return nil, err
			}
			v.note(load.Scenario, filepath.Base(m.job), k, s)
			*m.into = append(*m.into, s)
		}
		for _, m := range []struct {
			job  string
			into *[]sample
		}{{jobs["s6_s3"], &ri}, {jobs["s6_local"], &rb}} {
			s, err := v.runIdem(ctx, m.job, false, skippedWith(n))
			if err != nil {
				return nil, err
			}
			v.note(rerun.Scenario, filepath.Base(m.job), k, s)
			*m.into = append(*m.into, s)
		}
	}
	finish(&load, li, lb)
	finish(&rerun, ri, rb)
	return []Row{load, rerun}, nil
}

func skippedWith(n int64) func(result) error {
	return func(r result) error {
		if r.Action != "skipped" || r.RowCount != n {
			return fmt.Errorf("want skipped with %d rows", n)
		}
		return nil
	}
}
