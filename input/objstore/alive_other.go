//go:build !unix

package objstore

import "os"

// alive reports whether process pid exists.
func alive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}
