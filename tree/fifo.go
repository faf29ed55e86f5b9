//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package tree

import (
	"io/fs"
	"syscall"
)

// mkfifo makes a named pipe at path.
func mkfifo(path string, perm fs.FileMode) error {
	return syscall.Mkfifo(path, uint32(perm.Perm()))
}
