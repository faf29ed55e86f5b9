package bitcode

import (
	"encoding/binary"
	"fmt"
	"io"
)

// Type codes of the element types a data array may have.
const (
	typeFloat  = 3
	typeDouble = 4
	typeHalf   = 10
	typeVector = 12
	typeBFloat = 23
)

// EmbeddedObjects returns the offloading images clang embeds in host bitcode,
// as llvm-offload-binary 22 finds them: for each operand of the named
// metadata llvm.embedded.objects that is a node with at least two operands,
// the second being the string ".llvm.offloading" and the first a global
// variable whose initializer is a constant data array (or, as LLVM 22 also
// accepts, a constant data vector), the raw bytes of that initializer, in
// operand order; data of wider elements is given in little-endian order. Each result is normally a stream of
// OffloadBinaries (magic 10 FF 10 AD). Without the named metadata there are
// no objects and no error.
//
// As in LLVM, the file must hold exactly one module. Only module-level
// records are read: function bodies are skipped. Operands of other shapes
// are skipped, including a global without initializer, on which
// llvm-offload-binary 22 crashes.
func EmbeddedObjects(r io.ReaderAt, size int64) ([][]byte, error) {
	f, err := openFile(r, size)
	if err != nil {
		return nil, err
	}
	if len(f.mods) != 1 {
		return nil, errAt(f.off, "expected a single module, found %d", len(f.mods))
	}
	mi, err := f.parseModule(0, true)
	if err != nil {
		return nil, err
	}
	if mi.version < 2 {
		return nil, unsupportedAt(f.off, "module version %d without a string table is not supported", mi.version)
	}
	var objs [][]byte
	for i, id := range mi.embedded {
		if id >= uint64(len(mi.md)) {
			return nil, fmt.Errorf("bitcode: llvm.embedded.objects operand %d: metadata ID %d out of range (%d)", i, id, len(mi.md))
		}
		node := mi.md[id]
		if node.kind != mdIsNode || len(node.ops) < 2 {
			continue
		}
		s, err := mi.mdRef(node.ops[1])
		if err != nil {
			return nil, fmt.Errorf("bitcode: llvm.embedded.objects operand %d: %w", i, err)
		}
		if s == nil || s.kind != mdIsString || s.str != ".llvm.offloading" {
			continue
		}
		v, err := mi.mdRef(node.ops[0])
		if err != nil {
			return nil, fmt.Errorf("bitcode: llvm.embedded.objects operand %d: %w", i, err)
		}
		if v == nil || v.kind != mdIsValue {
			continue
		}
		data, ok, err := mi.initializerBytes(v.val)
		if err != nil {
			return nil, fmt.Errorf("bitcode: llvm.embedded.objects operand %d: %w", i, err)
		}
		if ok {
			objs = append(objs, data)
		}
	}
	return objs, nil
}

// mdRef resolves a node operand (metadata ID + 1, 0 for null).
func (mi *moduleInfo) mdRef(op uint64) (*mdEntry, error) {
	if op == 0 {
		return nil, nil
	}
	if op-1 >= uint64(len(mi.md)) {
		return nil, fmt.Errorf("metadata ID %d out of range (%d)", op-1, len(mi.md))
	}
	return &mi.md[op-1], nil
}

// initializerBytes returns the raw bytes of the initializer of the global
// variable with value ID id, if that is a constant data array.
func (mi *moduleInfo) initializerBytes(id uint64) ([]byte, bool, error) {
	if id >= uint64(len(mi.values)) {
		return nil, false, fmt.Errorf("value ID %d out of range (%d)", id, len(mi.values))
	}
	v := mi.values[id]
	if !v.global {
		return nil, false, nil
	}
	g := mi.globals[v.idx]
	if g.kind != gvVar || g.init == 0 {
		return nil, false, nil
	}
	if g.init-1 >= uint64(len(mi.values)) {
		return nil, false, fmt.Errorf("global %q: initializer value ID %d out of range (%d)", g.name, g.init-1, len(mi.values))
	}
	iv := mi.values[g.init-1]
	if iv.global {
		return nil, false, nil
	}
	k := mi.constants[iv.idx]
	if k.code != cstString && k.code != cstCString && k.code != cstData {
		return nil, false, nil
	}
	if k.typ >= uint64(len(mi.types)) {
		return nil, false, fmt.Errorf("global %q: initializer type ID %d out of range (%d)", g.name, k.typ, len(mi.types))
	}
	t := mi.types[k.typ]
	if t.code != typeArray && t.code != typeVector {
		return nil, false, nil // not a data array or vector
	}
	if len(t.ops) < 2 || t.ops[1] >= uint64(len(mi.types)) {
		return nil, false, fmt.Errorf("global %q: malformed array or vector type %d", g.name, k.typ)
	}
	n := uint64(len(k.ops))
	if k.code != cstData {
		n = uint64(len(k.chars))
	}
	if k.code == cstCString {
		n++
	}
	if n != t.ops[0] {
		return nil, false, fmt.Errorf("global %q: initializer has %d elements, its type %d", g.name, n, t.ops[0])
	}
	elt := mi.types[t.ops[1]]
	width := 0
	switch {
	case elt.code == typeInteger && len(elt.ops) == 1 && elt.ops[0] <= 64 && elt.ops[0]%8 == 0 && elt.ops[0] > 0:
		width = int(elt.ops[0] / 8)
	case elt.code == typeHalf || elt.code == typeBFloat:
		width = 2
	case elt.code == typeFloat:
		width = 4
	case elt.code == typeDouble:
		width = 8
	default:
		return nil, false, nil
	}
	if k.code != cstData {
		if width != 1 {
			return nil, false, fmt.Errorf("global %q: string constant of %d-byte elements", g.name, width)
		}
		out := make([]byte, n)
		copy(out, k.chars) // a CSTRING's last byte stays 0
		return out, true, nil
	}
	out := make([]byte, 0, int(n)*width)
	var buf [8]byte
	for _, e := range k.ops {
		binary.LittleEndian.PutUint64(buf[:], e)
		out = append(out, buf[:width]...)
	}
	return out, true, nil
}
