//go:build linux || darwin || freebsd

// Package maptest makes memory that faults when read: a mapped file that was
// then truncated, for the tests of code that reads mapped input (package
// internal/fault).
package maptest

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Truncated writes data to a file in a test folder, maps it read-only and
// privately, cuts the file to keep bytes and returns the mapping: its pages
// past keep fault when read. The mapping is removed when the test ends. The
// test is skipped where the file cannot be mapped.
func Truncated(t testing.TB, data []byte, keep int64) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mapped")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := syscall.Mmap(int(f.Fd()), 0, len(data), syscall.PROT_READ, syscall.MAP_PRIVATE)
	f.Close()
	if err != nil {
		t.Skipf("mmap: %v", err)
	}
	t.Cleanup(func() { syscall.Munmap(m) })
	if err := os.Truncate(path, keep); err != nil {
		t.Fatal(err)
	}
	return m
}
