//go:build unix

package tree

import (
	"io/fs"
	"syscall"
	"time"
)

// idOf identifies a file by its device and inode, so that hard links are
// found.
func idOf(fi fs.FileInfo) (fileID, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{uint64(st.Dev), uint64(st.Ino)}, true
}

// atime is a file's last access time (its modification time when the
// system does not tell).
func atime(fi fs.FileInfo) time.Time {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return time.Unix(statAtime(st))
	}
	return fi.ModTime()
}
