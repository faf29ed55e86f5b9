package bigbuf

import (
	"math"
	"syscall"
	"unsafe"
)

const (
	hugePage = 2 << 20
	// Below this the Go heap does as well, and no file is mapped
	// (minFileMap).
	minMapped = minFileMap
)

// alloc maps size bytes (and up to a huge page more, to align them to one)
// and asks for transparent huge pages. It returns nil if the system
// refuses.
func alloc(size int) ([]byte, func()) {
	if size < minMapped || size > math.MaxInt-hugePage {
		return nil, nil
	}
	m, err := syscall.Mmap(-1, 0, size+hugePage, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil, nil
	}
	off := 0
	if a := addr(m) % hugePage; a != 0 {
		off = int(hugePage - a)
	}
	b := m[off : off+size : off+size]
	// Best effort: without huge pages the buffer still works.
	syscall.Madvise(b, syscall.MADV_HUGEPAGE)
	return b[:0], func() { syscall.Munmap(m) }
}

// addr is the address of b's first byte.
func addr(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }
