//go:build !unix

package tree

import (
	"io/fs"
	"time"
)

// idOf: no inode here, so hard links are copied as files.
func idOf(fs.FileInfo) (fileID, bool) { return fileID{}, false }

// atime is the modification time here: the access time is not at hand.
func atime(fi fs.FileInfo) time.Time { return fi.ModTime() }
