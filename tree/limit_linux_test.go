//go:build linux

package tree

import "syscall"

// lowerOpenFiles lowers the open-file limit to n, if it is above, and
// returns what puts it back.
func lowerOpenFiles(n uint64) func() {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err == nil && uint64(lim.Cur) > n {
		low := lim
		low.Cur = n
		if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low) == nil {
			return func() { syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim) }
		}
	}
	return func() {}
}
