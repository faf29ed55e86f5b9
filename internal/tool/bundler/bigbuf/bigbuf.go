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
package bigbuf

import (
	"errors"
	"io"
)

// A Buffer is a growable byte buffer. The zero value is empty and ready.
// Call Free when done with it: Bytes is invalid afterwards.
type Buffer struct {
	b    []byte
	free func()
}

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
// buffer.
func (b *Buffer) ReadFrom(r io.Reader) (int64, error) {
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
	mem = append(mem[:0], b.b...)
	b.Free()
	b.b, b.free = mem, free
}

// Free releases the buffer's memory. The buffer is empty afterwards.
func (b *Buffer) Free() {
	if b.free != nil {
		b.free()
	}
	b.b, b.free = nil, nil
}
