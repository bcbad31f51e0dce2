//go:build !no_mysql

package idem

// Built unless the no_mysql tag leaves the engine out of the binary.
import _ "github.com/idemdata/idem/engine/mysql" // registers mysql://
