//go:build darwin || freebsd || netbsd

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
		return time.Unix(int64(st.Atimespec.Sec), int64(st.Atimespec.Nsec))
	}
	return fi.ModTime()
}
