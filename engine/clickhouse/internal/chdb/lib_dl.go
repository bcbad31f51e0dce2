//go:build linux || darwin

package chdb

import "github.com/ebitengine/purego"

func openLib(path string) (uintptr, error) {
	return purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_GLOBAL)
}

// hasSym reports whether the library exports name.
func hasSym(lib uintptr, name string) bool {
	_, err := purego.Dlsym(lib, name)
	return err == nil
}
