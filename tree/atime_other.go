//go:build !(linux || openbsd || dragonfly || solaris || illumos || aix || darwin || freebsd || netbsd)

package tree

import (
	"io/fs"
	"time"
)

// atime is the modification time here: the access time is not at hand.
func atime(fi fs.FileInfo) time.Time { return fi.ModTime() }
