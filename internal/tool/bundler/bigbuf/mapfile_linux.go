//go:build linux && (amd64 || arm64 || riscv64 || loong64 || ppc64 || ppc64le || mips64 || mips64le)

package bigbuf

import (
	"os"
	"syscall"
)

// mapsFiles tells whether ReadFrom maps files here.
const mapsFiles = true

// mapFile maps the n bytes of f from offset off over the start of dst,
// privately, and reports whether it did. dst must start on a page and
// have room for n bytes rounded up to a page, off must be a multiple of
// the page size. The bytes past n in the last page are the file's (zeros
// past its end), as a read would not have written them; writes to dst go
// to private copies of the pages.
//
// Should the mapping fail, fresh memory is mapped back over the range:
// with MAP_FIXED the kernel may have dropped what was there. Only if that
// fails too is the error returned, and the buffer is then unusable.
//
// 64-bit Linux only: there mmap's offset is a byte offset (32-bit systems
// call mmap2, in pages), and its six arguments are passed as such (s390x
// passes them in memory). Since Linux 6.12 a failed MAP_FIXED mapping
// leaves what was there; before, a failure after the kernel dropped the old
// pages leaves a hole until the fresh memory is mapped back, into which
// another thread's mapping could fall: a file system's mmap failing then is
// not known to happen for regular files.
func mapFile(dst []byte, f *os.File, off, n int64) (bool, error) {
	page := int64(os.Getpagesize())
	length := (n + page - 1) / page * page
	if n <= 0 || off < 0 || off%page != 0 || addr(dst)%uintptr(page) != 0 || int64(len(dst)) < length {
		return false, nil
	}
	const prot = syscall.PROT_READ | syscall.PROT_WRITE
	_, _, e := syscall.Syscall6(syscall.SYS_MMAP, addr(dst), uintptr(length), prot,
		syscall.MAP_PRIVATE|syscall.MAP_FIXED, f.Fd(), uintptr(off))
	if e == 0 {
		return true, nil
	}
	_, _, e = syscall.Syscall6(syscall.SYS_MMAP, addr(dst), uintptr(length), prot,
		syscall.MAP_PRIVATE|syscall.MAP_FIXED|syscall.MAP_ANON, ^uintptr(0), 0)
	if e != 0 {
		return false, e
	}
	return false, nil
}

// A stamp is what changes when a file is written: its size, modification
// and status change times.
type stamp struct {
	size         int64
	mtime, ctime syscall.Timespec
}

func stampOf(fi os.FileInfo) (stamp, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return stamp{}, false
	}
	return stamp{fi.Size(), st.Mtim, st.Ctim}, true
}
