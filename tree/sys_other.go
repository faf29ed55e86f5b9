//go:build !unix

package tree

import (
	"errors"
	"io/fs"
)

// idOf: no inode here, so hard links are copied as files.
func idOf(fs.FileInfo) (fileID, bool) { return fileID{}, false }

// mkfifo: named pipes cannot be made here.
func mkfifo(path string, perm fs.FileMode) error {
	return &fs.PathError{Op: "mkfifo", Path: path, Err: errors.ErrUnsupported}
}
