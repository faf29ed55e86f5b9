//go:build unix

package tree

import "syscall"

// openBudget is how many rewritten files an in-place prune keeps open: a
// quarter of the descriptors the process may have, at most 256.
func openBudget() int {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 16
	}
	return int(min(lim.Cur/4, 256))
}
