package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/idemdata/idem/internal/cli"
)

// TestReferenceIsCurrent: docs/reference.md is what refgen writes now, so
// a field, command, flag or variable cannot change without the reference.
func TestReferenceIsCurrent(t *testing.T) {
	var b bytes.Buffer
	if err := generate(&b, "../../.."); err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadFile("../../../docs/reference.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, b.Bytes()) {
		t.Fatal("docs/reference.md is stale: run go run ./internal/tools/refgen > docs/reference.md")
	}
}

// The generation refuses a job field without a doc comment, and an
// IDEM_* variable the code reads that the reference does not describe.
func TestRefusesWhatItCannotDescribe(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/job.go", []byte("package job\n\ntype Job struct {\n\tName string `yaml:\"job\"`\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := jobFields(&b, dir); err == nil {
		t.Fatal("a field without a doc comment was listed")
	}
	if err := os.WriteFile(dir+"/env.go", []byte("package job\n\nconst v = \"IDEM_SOMETHING_NEW\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := environment(&b, cli.Command(), dir)
	if err == nil || !strings.Contains(err.Error(), "IDEM_SOMETHING_NEW") {
		t.Fatalf("an undescribed variable: %v", err)
	}
}
