//go:build unix

package atomicfile

import (
	"os"
	"sync"
	"syscall"
)

var (
	umaskOnce sync.Once
	umaskVal  os.FileMode
)

// umask reads the process umask once (setting it and restoring it is the
// only portable way to read it).
func umask() os.FileMode {
	umaskOnce.Do(func() {
		m := syscall.Umask(0)
		syscall.Umask(m)
		umaskVal = os.FileMode(m)
	})
	return umaskVal
}

// checkWritable fails as open(2) for writing would on an existing file
// the caller may not write (access(2) with W_OK).
func checkWritable(path string) error { return syscall.Access(path, 2) }
