// Package bigbuf is an in-memory buffer for inputs of tens or hundreds of
// megabytes that are written once, read and dropped: the bundle the
// bundler compresses.
//
// On Linux its memory comes from the system directly and is marked for
// transparent huge pages, so that filling it takes a fault every 2 MiB
// rather than every 4 KiB. A Go slice of that size is cleared by the
// runtime in one uninterruptible step, taking its page faults there, while
// the garbage collector started by the allocation waits on it with a
// spinning worker: on a two-CPU machine that cost a fifth of a compressed
// bundle's run time. Elsewhere, and whenever the system refuses, it is an
// ordinary slice.
//
// Files read into it at page boundaries are mapped there instead (ReadFrom,
// on 64-bit Linux but s390x): the bundler's inputs, 4096-aligned as clang
// asks, then cost neither a copy nor fresh memory, which the kernel clears
// first and which, on transparent huge pages, sometimes stalls for
// compaction (on a 30 MB rocSOLVER bundle, 20-35 ms of a 150-190 ms run). A mapped file
// truncated by another process faults when read: readers run under
// fault.Catch, and Source names the file. One written meanwhile shows
// through: Changed names it.
package bigbuf

import (
	"errors"
	"fmt"
	"io"
	"os"
	"unsafe"
)

// A Buffer is a growable byte buffer. The zero value is empty and ready.
// Call Free when done with it: Bytes is invalid afterwards.
type Buffer struct {
	b    []byte
	free func()
	maps []mapped // the files mapped into b, in order
}

// A mapped file: b[at:at+n] is f's bytes, f as stamped when mapped.
type mapped struct {
	at, n int
	f     *os.File
	stamp stamp
}

const (
	// Files shorter than this are copied: a mapping costs a system call
	// and splits the buffer's mapping in two.
	minFileMap = 64 << 10
	// At most this many files are mapped into one buffer, far below the
	// kernel's limit on mappings (vm.max_map_count, 65530 by default).
	maxFileMaps = 1024
)

// New returns a buffer with room for size bytes.
func New(size int) *Buffer {
	b := &Buffer{}
	b.grow(size)
	return b
}

// Bytes returns the bytes written so far.
func (b *Buffer) Bytes() []byte { return b.b }

// Len returns the number of bytes written.
func (b *Buffer) Len() int { return len(b.b) }

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	if len(p) > cap(b.b)-len(b.b) {
		b.grow(len(p))
	}
	b.b = append(b.b, p...)
	return len(p), nil
}

// ReadFrom appends what r returns until io.EOF, reading straight into the
// buffer. An io.LimitedReader over a regular *os.File, at a page boundary
// of the file and of the buffer, is mapped instead (on 64-bit Linux but s390x): the
// file's cached pages become the buffer's, without a copy into fresh
// memory that the kernel clears first. Reading them faults if another
// process truncates the file meanwhile; code that reads the buffer runs
// under fault.Catch, and Source names the file. The file must stay open
// until Changed has been asked.
func (b *Buffer) ReadFrom(r io.Reader) (int64, error) {
	if n, ok, err := b.mapFrom(r); ok || err != nil {
		return n, err
	}
	var total int64
	for {
		if len(b.b) == cap(b.b) {
			b.grow(64 << 10)
		}
		n, err := r.Read(b.b[len(b.b):cap(b.b)])
		if n < 0 {
			return total, errors.New("bigbuf: reader returned a negative count")
		}
		b.b = b.b[:len(b.b)+n]
		total += int64(n)
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

// mapFrom maps what r would return, if it can (ReadFrom).
func (b *Buffer) mapFrom(r io.Reader) (int64, bool, error) {
	lr, ok := r.(*io.LimitedReader)
	if !mapsFiles || !ok || b.free == nil || lr.N < minFileMap || len(b.maps) >= maxFileMaps || lr.N > int64(cap(b.b)-len(b.b)) {
		return 0, false, nil
	}
	f, ok := lr.R.(*os.File)
	if !ok {
		return 0, false, nil
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return 0, false, nil
	}
	st, ok := stampOf(fi)
	if !ok {
		return 0, false, nil
	}
	off, err := f.Seek(0, io.SeekCurrent)
	if err != nil || fi.Size()-off < lr.N {
		// Short files are read, for the reader's own error.
		return 0, false, nil
	}
	ok, err = mapFile(b.b[len(b.b):cap(b.b)], f, off, lr.N)
	if err != nil {
		return 0, false, fmt.Errorf("bigbuf: mapping %s failed and the buffer's memory could not be restored: %w", f.Name(), err)
	}
	if !ok {
		return 0, false, nil
	}
	n := lr.N
	if _, err := f.Seek(off+n, io.SeekStart); err != nil {
		return 0, false, err
	}
	b.maps = append(b.maps, mapped{at: len(b.b), n: int(n), f: f, stamp: st})
	b.b = b.b[:len(b.b)+int(n)]
	lr.N = 0
	return n, true, nil
}

// Source returns the name of the file mapped where the memory fault at
// addr happened, if it is one of the buffer's.
func (b *Buffer) Source(addr uintptr) (string, bool) {
	if len(b.b) == 0 {
		return "", false
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b.b)))
	page := uintptr(os.Getpagesize())
	for _, m := range b.maps {
		lo := start + uintptr(m.at)
		if addr >= lo && addr < lo+(uintptr(m.n)+page-1)/page*page {
			return m.f.Name(), true
		}
	}
	return "", false
}

// Changed returns the name of a mapped file that was written since it was
// mapped (its size or times differ), if any. A write to a mapped file that
// another process makes shows through the pages not yet copied, a cut
// inside its last page reads as zeros without a fault, and MD5 and the
// encoder may have seen different bytes: a read would have taken a
// snapshot. Call it after the last read of the buffer, before the files
// are closed.
func (b *Buffer) Changed() (string, bool) {
	for _, m := range b.maps {
		fi, err := m.f.Stat()
		if err != nil {
			return m.f.Name(), true
		}
		if st, ok := stampOf(fi); !ok || st != m.stamp {
			return m.f.Name(), true
		}
	}
	return "", false
}

// grow makes room for n more bytes, at least doubling the capacity.
func (b *Buffer) grow(n int) {
	want := len(b.b) + n
	if want <= cap(b.b) {
		return
	}
	want = max(want, 2*cap(b.b))
	mem, free := alloc(want)
	if mem == nil {
		mem, free = make([]byte, 0, want), nil
	}
	copied := false
	defer func() {
		// Copying a mapped file faults if it was truncated.
		if !copied && free != nil {
			free()
		}
	}()
	mem = append(mem[:0], b.b...)
	copied = true
	b.Free()
	b.b, b.free = mem, free // copies now, no file mapped
}

// Free releases the buffer's memory. The buffer is empty afterwards.
func (b *Buffer) Free() {
	if b.free != nil {
		b.free()
	}
	b.b, b.free, b.maps = nil, nil, nil
}
