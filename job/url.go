package job

import "github.com/idemdata/idem/engine/dsn"

// The URL helpers live below the engines, in engine/dsn; job re-exports
// them for its callers.

// ErrURL marks a target URL that cannot be parsed (dsn.ErrURL).
var ErrURL = dsn.ErrURL

// ServerURL is a server target URL with its credentials split off
// (dsn.ServerURL).
type ServerURL = dsn.ServerURL

// Redactor hides known secrets in any text (dsn.Redactor).
type Redactor = dsn.Redactor

// ParseServerURL splits a server URL's credentials off (dsn.ParseServerURL).
func ParseServerURL(s string) (ServerURL, error) { return dsn.ParseServerURL(s) }

// Redact hides the passwords in a target URL, for output (dsn.Redact).
func Redact(s string) string { return dsn.Redact(s) }

// Secrets lists the passwords a target URL carries (dsn.Secrets).
func Secrets(s string) []string { return dsn.Secrets(s) }

// NewRedactor hides the secrets of every argument that is a URL
// (dsn.NewRedactor).
func NewRedactor(args ...string) *Redactor { return dsn.NewRedactor(args...) }
