package compress

import (
	"bytes"
	"io"
	"testing"
)

func TestDecompressGolden(t *testing.T) {
	bundle := readTestdata(t, "bundle.bin")
	for _, g := range append(goldens, struct {
		file    string
		version uint16
		total   uint64
		hash    uint64
	}{"empty.cbc", 3, 41, 0x04b2008fd98c1dd4}) {
		b := readTestdata(t, g.file)
		want := bundle
		if g.file == "empty.cbc" {
			want = nil
		}
		out, h, err := DecompressLLVM(b)
		if err != nil || !bytes.Equal(out, want) || h.Version != g.version {
			t.Errorf("DecompressLLVM(%s): %d bytes, v%d, %v", g.file, len(out), h.Version, err)
		}
		res, err := Decompress(b)
		if err != nil || len(res) != 1 || !bytes.Equal(res[0].Data, want) || res[0].Computed != g.hash || res[0].PayloadSize != int64(len(b)-h.Len()) {
			t.Errorf("Decompress(%s): %+v, %v", g.file, res, err)
		}
		r := NewReader(bytes.NewReader(b), int64(len(b)))
		m, err := r.Next()
		if err != nil {
			t.Fatalf("%s: Next: %v", g.file, err)
		}
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, want) || m.Offset != 0 || m.End() != int64(len(b)) {
			t.Errorf("Reader(%s): %d bytes, member %+v, %v", g.file, len(got), m, err)
		}
		if _, err := r.Next(); err != io.EOF {
			t.Errorf("Reader(%s): second Next: %v", g.file, err)
		}
	}
}
