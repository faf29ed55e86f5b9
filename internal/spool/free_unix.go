//go:build linux || darwin || freebsd

package spool

import (
	"os"
	"syscall"
)

// freeSpace returns the bytes left to an unprivileged writer on f's file
// system.
var freeSpace = func(f *os.File) (int64, bool) {
	var st syscall.Statfs_t
	if err := syscall.Fstatfs(int(f.Fd()), &st); err != nil {
		return 0, false
	}
	// The fields' types differ between systems; a negative count (BSD's
	// reserve) turns huge and is refused with the rest.
	blocks, size := uint64(st.Bavail), uint64(st.Bsize)
	if size == 0 || size > 1<<20 || blocks > 1<<62/size {
		return 0, false
	}
	return int64(blocks * size), true
}
