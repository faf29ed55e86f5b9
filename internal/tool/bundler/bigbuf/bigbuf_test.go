package bigbuf

import (
	"bytes"
	"io"
	"math/rand"
	"testing"
	"testing/iotest"
)

func TestBuffer(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	want := make([]byte, 9<<20+123) // past minMapped: mapped on Linux
	r.Read(want)
	for _, size := range []int{0, 100, 5 << 20, 16 << 20} {
		b := New(size)
		if b.Len() != 0 {
			t.Fatalf("New(%d): Len %d", size, b.Len())
		}
		// Writes of odd sizes, then the rest through ReadFrom in small reads.
		half := len(want) / 2
		for i := 0; i < half; i += 777 {
			if n, err := b.Write(want[i:min(i+777, half)]); err != nil || n != min(777, half-i) {
				t.Fatalf("Write: %d, %v", n, err)
			}
		}
		n, err := b.ReadFrom(iotest.HalfReader(bytes.NewReader(want[half:])))
		if err != nil || n != int64(len(want)-half) {
			t.Fatalf("ReadFrom: %d, %v", n, err)
		}
		if !bytes.Equal(b.Bytes(), want) {
			t.Fatalf("New(%d): bytes differ", size)
		}
		b.Free()
		if b.Len() != 0 || b.Bytes() != nil {
			t.Fatal("Free left bytes")
		}
		b.Free()
	}
}

func TestReadFromError(t *testing.T) {
	var b Buffer
	defer b.Free()
	n, err := b.ReadFrom(iotest.TimeoutReader(bytes.NewReader(make([]byte, 100<<10))))
	if err != iotest.ErrTimeout || n == 0 {
		t.Fatalf("ReadFrom: %d, %v", n, err)
	}
	if _, err := io.Copy(&b, bytes.NewReader([]byte("x"))); err != nil {
		t.Fatal(err)
	}
}
