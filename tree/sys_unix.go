//go:build unix

package tree

import (
	"io/fs"
	"syscall"
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

// mkfifo makes a named pipe at path.
func mkfifo(path string, perm fs.FileMode) error {
	return syscall.Mkfifo(path, uint32(perm.Perm()))
}
