//go:build !linux

package atomicfile

import (
	"errors"
	"os"
)

// openUnnamed is Linux's O_TMPFILE; elsewhere outputs are written to named
// temporary files, which a process killed while writing leaves behind.
func openUnnamed(dir, base string) (*os.File, bool) { return nil, false }

func linkUnnamed(f *os.File) (string, error) { return "", errors.New("unnamed files are Linux-only") }
