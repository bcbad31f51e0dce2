//go:build !(linux || darwin)

package chdb

import "errors"

// openLib: libchdb.so is built for Linux.
func openLib(string) (uintptr, error) {
	return 0, errors.New("embedded ClickHouse (chDB) runs on Linux only")
}

func hasSym(uintptr, string) bool { return false }
