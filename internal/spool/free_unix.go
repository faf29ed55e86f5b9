//go:build linux || darwin || freebsd

package spool

import (
	"os"
	"syscall"
)

// freeSpace returns the bytes left to an unprivileged writer on f's file
// system, and false when the file system does not say (a tmpfs without a
// size limit, ramfs: no blocks at all).
var freeSpace = func(f *os.File) (int64, bool) {
	var st syscall.Statfs_t
	if err := syscall.Fstatfs(int(f.Fd()), &st); err != nil || st.Blocks == 0 {
		return 0, false
	}
	// The fields' types differ between systems. A negative count (BSD's
	// reserve, in use) is no space left.
	avail := int64(st.Bavail)
	size := int64(st.Bsize)
	if size <= 0 || size > 1<<20 {
		return 0, false
	}
	if avail <= 0 {
		return 0, true
	}
	if avail > 1<<62/size {
		return 0, false
	}
	return avail * size, true
}
