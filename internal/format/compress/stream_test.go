package compress

import (
	"bytes"
	"errors"
	"os"
	"testing"
)

// TestDecompressTo: what Compress and LLVM write inflates through the
// streaming path to the same bytes as DecompressLLVM; everything else is
// left to NewLLVMReader.
func TestDecompressTo(t *testing.T) {
	src := readTestdata(t, "bundle.bin")
	ours := mustCompress(t, src, Options{Level: 1})
	for name, blob := range map[string][]byte{
		"LLVM v3":  readTestdata(t, "v3-default.cbc"),
		"LLVM v2":  readTestdata(t, "v2-default.cbc"),
		"ours":     ours,
		"ours v1":  mustCompress(t, src, Options{Version: 1}),
		"corpus-3": readTestdata(t, "corpus-3gpu.cbc"),
	} {
		want, _, err := DecompressLLVM(blob)
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.CreateTemp(t.TempDir(), "out")
		if err != nil {
			t.Fatal(err)
		}
		_, err = DecompressTo(f, f, bytes.NewReader(blob), int64(len(blob)))
		got, _ := os.ReadFile(f.Name())
		f.Close()
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes (want %d), %v", name, len(got), len(want), err)
		}
	}
	twice := append(bytes.Clone(ours), ours...)
	v3 := readTestdata(t, "v3-default.cbc")
	for name, blob := range map[string][]byte{
		"two CCOBs": twice,
		"zlib":      mustCompress(t, src, Options{Zlib: true, Level: 6}),
		"padding":   append(bytes.Clone(v3), 0, 0, 0, 0),
		"plain":     src,
	} {
		var out bytes.Buffer
		if _, err := DecompressTo(&out, nil, bytes.NewReader(blob), int64(len(blob))); !errors.Is(err, ErrNotStreamable) {
			t.Errorf("%s: %v, want ErrNotStreamable", name, err)
		}
	}
	bad := bytes.Clone(v3)
	bad[len(bad)-3] ^= 0x55
	var out bytes.Buffer
	if _, err := DecompressTo(&out, nil, bytes.NewReader(bad), int64(len(bad))); err == nil {
		t.Error("a damaged frame inflates")
	}
}
