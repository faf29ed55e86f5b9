package compress

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/goffload/goffload/fmterr"
)

// FuzzReader feeds arbitrary inputs to the three readers: they must not
// panic or allocate without bound, and must agree with each other where
// their semantics coincide.
func FuzzReader(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.cbc"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add(v1(Zstd, mustCompress(f, []byte("hello hello hello"), Options{})[headerLenV3:], []byte("hello hello hello")))
	f.Add(mustCompress(f, []byte("zlib zlib zlib zlib"), Options{Zlib: true, Level: 9}))
	f.Add(append(pad(mustCompress(f, []byte("one"), Options{})), mustCompress(f, []byte("two"), Options{Version: 2})...))
	f.Fuzz(func(t *testing.T, blob []byte) {
		out, h, err := DecompressLLVM(blob)
		if err == nil && uint64(len(out)) > h.UncompressedSize {
			t.Fatalf("DecompressLLVM returned %d bytes, header says %d", len(out), h.UncompressedSize)
		}
		res, derr := Decompress(blob)
		if err == nil && (derr != nil || len(res) != 1 || !bytes.Equal(res[0].Data, out)) {
			t.Fatalf("Decompress disagrees with DecompressLLVM: %v", derr)
		}
		if err != nil && derr != nil && fmterr.LLVMMessage(derr) != fmterr.LLVMMessage(err) {
			t.Fatalf("Decompress error %q, DecompressLLVM %q", fmterr.LLVMMessage(derr), fmterr.LLVMMessage(err))
		}
		r := NewReader(bytes.NewReader(blob), int64(len(blob)))
		for range 100 {
			m, err := r.Next()
			if err != nil {
				break
			}
			data, err := io.ReadAll(r)
			var hm *HashMismatchError
			if err == nil || errors.As(err, &hm) {
				if uint64(len(data)) != m.UncompressedSize || m.PayloadSize < 0 || m.End() > int64(len(blob)) {
					t.Fatalf("member %+v read %d bytes", m, len(data))
				}
			}
		}
	})
}
