package objfmt

import (
	"io"
)

// wasmSections walks the sections of a WebAssembly object: for each, its
// id, its custom-section name (id 0) and where its contents lie (after the
// name for a custom section, as LLVM's reader takes them). It returns false
// when the section framing does not fit the file.
func wasmSections(r io.ReaderAt, size int64, visit func(id byte, name string, off, n int64)) bool {
	pos := int64(8) // magic and version
	for pos < size {
		var id [1]byte
		if _, err := r.ReadAt(id[:], pos); err != nil {
			return false
		}
		n, l, ok := readULEB32(r, pos+1, size)
		if !ok || int64(n) > size-(pos+1+l) {
			return false
		}
		start, end := pos+1+l, pos+1+l+int64(n)
		off, name := start, ""
		if id[0] == 0 {
			nl, ll, ok := readULEB32(r, start, end)
			if !ok || int64(nl) > end-(start+ll) {
				return false
			}
			b := make([]byte, nl)
			if _, err := r.ReadAt(b, start+ll); err != nil {
				return false
			}
			name, off = string(b), start+ll+int64(nl)
		}
		if visit != nil {
			visit(id[0], name, off, end-off)
		}
		pos = end
	}
	return true
}

// readULEB32 reads an unsigned LEB128 of at most 5 bytes at off, before
// limit, and returns its value and length.
func readULEB32(r io.ReaderAt, off, limit int64) (uint32, int64, bool) {
	var v uint64
	for i := int64(0); i < 5; i++ {
		if off+i >= limit {
			return 0, 0, false
		}
		var b [1]byte
		if _, err := r.ReadAt(b[:], off+i); err != nil {
			return 0, 0, false
		}
		v |= uint64(b[0]&0x7f) << (7 * i)
		if b[0]&0x80 == 0 {
			if v > 0xffffffff {
				return 0, 0, false
			}
			return uint32(v), i + 1, true
		}
	}
	return 0, 0, false
}

// readWasmBundles lists the custom sections of a WebAssembly object named
// with BundlePrefix (llvm-objcopy can add them; the bundler lists and
// unbundles them).
func readWasmBundles(r io.ReaderAt, size int64) ([]Bundle, error) {
	var out []Bundle
	var err error
	ok := wasmSections(r, size, func(id byte, name string, off, n int64) {
		bid, isBundle := bundleID(name)
		if id != 0 || !isBundle || err != nil {
			return
		}
		b := Bundle{ID: bid, Offset: off, Size: n}
		if n == 0 {
			b.Offset = 0
		}
		if n == 1 {
			var c [1]byte
			if _, err = r.ReadAt(c[:], off); err != nil {
				return
			}
			b.HostPlaceholder = c[0] == 0
		}
		out = append(out, b)
	})
	if !ok {
		return nil, formatErr(8, "malformed WebAssembly section framing")
	}
	return out, err
}
