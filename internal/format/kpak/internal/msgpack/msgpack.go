// Package msgpack decodes MessagePack data (the tables of contents of KPAK
// archives and the .rocm_kpack_ref sections of kpack'd binaries) into plain
// Go values, strictly and within bounds.
//
// Values decode as:
//
//	nil                       nil
//	true, false               bool
//	integers                  int64, or uint64 above math.MaxInt64
//	float32, float64          float64
//	str                       string (bytes as stored, UTF-8 not checked)
//	bin                       []byte (never nil)
//	array                     []any
//	map                       map[string]any
//
// Strict: map keys must be strings and must not repeat, extension types
// (timestamps included) and the never-used byte 0xc1 are errors. Decode
// reads one value and says how many bytes it took. Non-minimal encodings (a small
// number stored as uint32, say) are accepted, as every reader does.
//
// Bounded: containers nest at most MaxDepth deep, and every length is
// checked against the bytes left before anything is allocated for it, so
// memory stays proportional to the input whatever the lengths claim.
package msgpack

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// MaxDepth is how deep arrays and maps may nest (the outermost container
// is at depth 1).
const MaxDepth = 32

// Kinds of errors, wrapped in an *Error.
var (
	ErrTruncated    = errors.New("data ends inside a value")
	ErrTooDeep      = errors.New("containers nested too deep")
	ErrKeyType      = errors.New("map key is not a string")
	ErrDuplicateKey = errors.New("map key repeated")
	ErrUnsupported  = errors.New("unsupported type")
)

// An Error is a decoding failure at byte Offset of the input.
type Error struct {
	Offset int64
	Kind   error
	Detail string
}

func (e *Error) Error() string {
	s := fmt.Sprintf("msgpack: offset %d: %v", e.Offset, e.Kind)
	if e.Detail != "" {
		s += " (" + e.Detail + ")"
	}
	return s
}

func (e *Error) Unwrap() error { return e.Kind }

// Decode decodes the value at the start of b and returns it with the
// number of bytes it took; bytes after it are left alone.
func Decode(b []byte) (v any, n int, err error) {
	d := decoder{b: b}
	v, err = d.value()
	if err != nil {
		return nil, d.pos, err
	}
	return v, d.pos, nil
}

// Uint returns v as a non-negative integer: an int64 of at least 0 or a
// uint64.
func Uint(v any) (uint64, bool) {
	switch x := v.(type) {
	case int64:
		if x >= 0 {
			return uint64(x), true
		}
	case uint64:
		return x, true
	}
	return 0, false
}

// TypeName names the msgpack type of a decoded value, for messages.
func TypeName(v any) string {
	switch v.(type) {
	case nil:
		return "nil"
	case bool:
		return "bool"
	case int64, uint64:
		return "integer"
	case float64:
		return "float"
	case string:
		return "string"
	case []byte:
		return "binary"
	case []any:
		return "array"
	case map[string]any:
		return "map"
	}
	return fmt.Sprintf("%T", v)
}

// maxPrealloc caps the room reserved up front for an array or map; a
// longer one grows as its elements actually decode.
const maxPrealloc = 1024

type decoder struct {
	b     []byte
	pos   int
	depth int
}

func (d *decoder) fail(at int, kind error, format string, a ...any) error {
	return &Error{Offset: int64(at), Kind: kind, Detail: fmt.Sprintf(format, a...)}
}

func (d *decoder) left() int { return len(d.b) - d.pos }

// take returns the next n bytes, or fails (at the value starting at at)
// when fewer are left.
func (d *decoder) take(at, n int, what string) ([]byte, error) {
	if n < 0 || n > d.left() {
		return nil, d.fail(at, ErrTruncated, "%s needs %d bytes, %d left", what, n, d.left())
	}
	s := d.b[d.pos : d.pos+n]
	d.pos += n
	return s, nil
}

// length reads a big-endian length of size bytes (1, 2 or 4).
func (d *decoder) length(at, size int, what string) (int, error) {
	s, err := d.take(at, size, what+" length")
	if err != nil {
		return 0, err
	}
	switch size {
	case 1:
		return int(s[0]), nil
	case 2:
		return int(binary.BigEndian.Uint16(s)), nil
	}
	n := binary.BigEndian.Uint32(s)
	if uint64(n) > uint64(math.MaxInt) {
		return 0, d.fail(at, ErrTruncated, "%s of %d", what, n)
	}
	return int(n), nil
}

func (d *decoder) value() (any, error) {
	at := d.pos
	if d.left() < 1 {
		return nil, d.fail(at, ErrTruncated, "a value was expected")
	}
	c := d.b[d.pos]
	d.pos++
	switch {
	case c <= 0x7f:
		return int64(c), nil
	case c >= 0xe0:
		return int64(int8(c)), nil
	case c&0xf0 == 0x80:
		return d.mapOf(at, int(c&0x0f))
	case c&0xf0 == 0x90:
		return d.arrayOf(at, int(c&0x0f))
	case c&0xe0 == 0xa0:
		return d.str(at, int(c&0x1f))
	}
	switch c {
	case 0xc0:
		return nil, nil
	case 0xc2:
		return false, nil
	case 0xc3:
		return true, nil
	case 0xc4, 0xc5, 0xc6: // bin 8, 16, 32
		n, err := d.length(at, 1<<(c-0xc4), "binary")
		if err != nil {
			return nil, err
		}
		s, err := d.take(at, n, "binary")
		if err != nil {
			return nil, err
		}
		return append([]byte{}, s...), nil
	case 0xca:
		s, err := d.take(at, 4, "float32")
		if err != nil {
			return nil, err
		}
		return float64(math.Float32frombits(binary.BigEndian.Uint32(s))), nil
	case 0xcb:
		s, err := d.take(at, 8, "float64")
		if err != nil {
			return nil, err
		}
		return math.Float64frombits(binary.BigEndian.Uint64(s)), nil
	case 0xcc, 0xcd, 0xce, 0xcf: // uint 8, 16, 32, 64
		s, err := d.take(at, 1<<(c-0xcc), "unsigned integer")
		if err != nil {
			return nil, err
		}
		u := beUint(s)
		if u > math.MaxInt64 {
			return u, nil
		}
		return int64(u), nil
	case 0xd0, 0xd1, 0xd2, 0xd3: // int 8, 16, 32, 64
		size := 1 << (c - 0xd0)
		s, err := d.take(at, size, "integer")
		if err != nil {
			return nil, err
		}
		shift := 64 - 8*size
		return int64(beUint(s)<<shift) >> shift, nil
	case 0xd9, 0xda, 0xdb: // str 8, 16, 32
		n, err := d.length(at, 1<<(c-0xd9), "string")
		if err != nil {
			return nil, err
		}
		return d.str(at, n)
	case 0xdc, 0xdd: // array 16, 32
		n, err := d.length(at, 2<<(c-0xdc), "array")
		if err != nil {
			return nil, err
		}
		return d.arrayOf(at, n)
	case 0xde, 0xdf: // map 16, 32
		n, err := d.length(at, 2<<(c-0xde), "map")
		if err != nil {
			return nil, err
		}
		return d.mapOf(at, n)
	case 0xc1:
		return nil, d.fail(at, ErrUnsupported, "byte 0xc1 is never used")
	}
	// 0xc7-0xc9 ext 8/16/32, 0xd4-0xd8 fixext.
	return nil, d.fail(at, ErrUnsupported, "extension type (byte %#02x)", c)
}

func beUint(s []byte) uint64 {
	var u uint64
	for _, x := range s {
		u = u<<8 | uint64(x)
	}
	return u
}

func (d *decoder) str(at, n int) (any, error) {
	s, err := d.take(at, n, "string")
	if err != nil {
		return nil, err
	}
	return string(s), nil
}

func (d *decoder) enter(at int) error {
	if d.depth >= MaxDepth {
		return d.fail(at, ErrTooDeep, "more than %d levels", MaxDepth)
	}
	d.depth++
	return nil
}

func (d *decoder) arrayOf(at, n int) (any, error) {
	// Every element takes at least one byte.
	if n > d.left() {
		return nil, d.fail(at, ErrTruncated, "array of %d elements in %d bytes", n, d.left())
	}
	if err := d.enter(at); err != nil {
		return nil, err
	}
	a := make([]any, 0, min(n, maxPrealloc))
	for range n {
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		a = append(a, v)
	}
	d.depth--
	return a, nil
}

func (d *decoder) mapOf(at, n int) (any, error) {
	// Every pair takes at least two bytes.
	if n > d.left()/2 {
		return nil, d.fail(at, ErrTruncated, "map of %d pairs in %d bytes", n, d.left())
	}
	if err := d.enter(at); err != nil {
		return nil, err
	}
	m := make(map[string]any, min(n, maxPrealloc))
	for range n {
		kat := d.pos
		k, err := d.value()
		if err != nil {
			return nil, err
		}
		ks, ok := k.(string)
		if !ok {
			return nil, d.fail(kat, ErrKeyType, "%s key", TypeName(k))
		}
		if _, dup := m[ks]; dup {
			return nil, d.fail(kat, ErrDuplicateKey, "%q", ks)
		}
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		m[ks] = v
	}
	d.depth--
	return m, nil
}
