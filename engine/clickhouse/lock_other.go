//go:build !unix

package clickhouse

// heldElsewhere cannot probe the folder's lock here: chDB's own open
// reports a folder another process holds.
func heldElsewhere(string) (bool, error) { return false, nil }
