//go:build darwin || freebsd || netbsd

package tree

import "syscall"

// statAtime is the access time in a stat result (st_atimespec here).
func statAtime(st *syscall.Stat_t) (sec, nsec int64) {
	return int64(st.Atimespec.Sec), int64(st.Atimespec.Nsec)
}
