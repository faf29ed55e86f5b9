//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package tree

import (
	"errors"
	"io/fs"
)

// mkfifo: named pipes cannot be made here.
func mkfifo(path string, perm fs.FileMode) error {
	return &fs.PathError{Op: "mkfifo", Path: path, Err: errors.ErrUnsupported}
}
