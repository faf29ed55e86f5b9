package compress

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// TestSkipHash: a wrong stored hash is a *HashMismatchError at the end of
// the data, and nothing with SkipHash (for callers that ignore it, as LLVM
// does, without paying for the MD5).
func TestSkipHash(t *testing.T) {
	var b bytes.Buffer
	if _, err := Compress(&b, bytes.Repeat([]byte("code object "), 1000), Options{}); err != nil {
		t.Fatal(err)
	}
	blob := b.Bytes()
	h, err := ParseHeader(blob)
	if err != nil || h.Len() != 32 {
		t.Fatalf("header %+v, %v", h, err)
	}
	blob[24] ^= 0xff // the stored hash
	for _, skip := range []bool{false, true} {
		r := NewReader(bytes.NewReader(blob), int64(len(blob)))
		if skip {
			r.SkipHash()
		}
		if _, err := r.Next(); err != nil {
			t.Fatal(err)
		}
		_, err := io.Copy(io.Discard, r)
		if mismatch := errors.Is(err, ErrHashMismatch); mismatch == skip || !skip && err == nil || skip && err != nil {
			t.Errorf("SkipHash %v: %v", skip, err)
		}
	}
}
