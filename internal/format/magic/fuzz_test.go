package magic

import (
	"bytes"
	"testing"
)

// FuzzIdentify checks that Identify never panics, that IdentifyReader
// agrees with Identify given the whole input (in particular on MS-DOS
// stubs whose PE pointer lies within the first Len bytes), and that
// nothing but a PE image needs more than the first Len bytes.
func FuzzIdentify(f *testing.F) {
	for _, c := range kindCases() {
		f.Add(c.in)
	}
	f.Add(mz(0x44, 0x40))
	f.Add(mz(0x44, 0x10)) // the signature within the first Len bytes
	f.Add(mz(0x40, 0x1c))
	f.Add(mz(0x100, 0x3c)) // pointing at itself
	f.Fuzz(func(t *testing.T, data []byte) {
		k := Identify(data)
		r, err := IdentifyReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatalf("IdentifyReader: %v", err)
		}
		if r != k {
			t.Fatalf("IdentifyReader = %v, Identify = %v", r, k)
		}
		if head := data[:min(len(data), Len)]; k != PEExecutable {
			if h := Identify(head); h != k {
				t.Fatalf("Identify(first %d bytes) = %v, Identify(all) = %v", len(head), h, k)
			}
		}
		if k.IsELF() && !k.IsObject() {
			t.Fatalf("%v is ELF but not an object", k)
		}
	})
}
