//go:build !unix

package maptest

import "testing"

// Truncated skips the test: files are mapped on Unix only.
func Truncated(t testing.TB, data []byte, keep int64) []byte {
	t.Skip("no mapped files on this system")
	return nil
}
