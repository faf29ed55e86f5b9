//go:build linux || openbsd || dragonfly || solaris || illumos || aix

package tree

import (
	"io/fs"
	"syscall"
	"time"
)

// atime is a file's last access time (its modification time when the
// system does not tell).
func atime(fi fs.FileInfo) time.Time {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return time.Unix(int64(st.Atim.Sec), int64(st.Atim.Nsec))
	}
	return fi.ModTime()
}
