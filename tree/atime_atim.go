//go:build linux || openbsd || dragonfly || solaris || illumos || aix

package tree

import "syscall"

// statAtime is the access time in a stat result (st_atim here).
func statAtime(st *syscall.Stat_t) (sec, nsec int64) {
	return int64(st.Atim.Sec), int64(st.Atim.Nsec)
}
