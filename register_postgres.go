//go:build !no_postgres

package idem

// Built unless the no_postgres tag leaves the engine out of the binary.
import _ "github.com/idemdata/idem/engine/postgres" // registers postgres:// and postgresql://
