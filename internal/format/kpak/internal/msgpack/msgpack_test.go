package msgpack

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/goffload/goffload/internal/test/msgpacktest"
)

// h builds input bytes from pieces: a string is taken as is, an int is one
// byte.
func h(parts ...any) []byte {
	var b []byte
	for _, p := range parts {
		switch x := p.(type) {
		case string:
			b = append(b, x...)
		case int:
			b = append(b, byte(x))
		case []byte:
			b = append(b, x...)
		}
	}
	return b
}

func be16(n int) []byte { return binary.BigEndian.AppendUint16(nil, uint16(n)) }
func be32(n int) []byte { return binary.BigEndian.AppendUint32(nil, uint32(n)) }

// nested returns n arrays of one element each around nil.
func nested(n int) []byte {
	return append(bytes.Repeat([]byte{0x91}, n), 0xc0)
}

var good = []struct {
	name string
	in   []byte
	want any
}{
	{"nil", h(0xc0), nil},
	{"false", h(0xc2), false},
	{"true", h(0xc3), true},
	{"positive fixint", h(0x7f), int64(127)},
	{"zero", h(0x00), int64(0)},
	{"negative fixint", h(0xe0), int64(-32)},
	{"minus one", h(0xff), int64(-1)},
	{"uint8", h(0xcc, 0xff), int64(255)},
	{"uint16", h(0xcd, 0x12, 0x34), int64(0x1234)},
	{"uint32", h(0xce, 0xde, 0xad, 0xbe, 0xef), int64(0xdeadbeef)},
	{"uint64 small", h(0xcf, 0, 0, 0, 0, 0, 0, 0, 5), int64(5)},
	{"uint64 max int64", h(0xcf, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff), int64(math.MaxInt64)},
	{"uint64 above int64", h(0xcf, 0x80, 0, 0, 0, 0, 0, 0, 0), uint64(1 << 63)},
	{"uint64 max", h(0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff), uint64(math.MaxUint64)},
	{"int8", h(0xd0, 0x80), int64(-128)},
	{"int16", h(0xd1, 0xff, 0x00), int64(-256)},
	{"int32", h(0xd2, 0x80, 0, 0, 0), int64(math.MinInt32)},
	{"int64", h(0xd3, 0x80, 0, 0, 0, 0, 0, 0, 0), int64(math.MinInt64)},
	{"int8 positive", h(0xd0, 0x05), int64(5)},
	{"float32", h(0xca, 0x3f, 0xc0, 0, 0), float64(1.5)},
	{"float64", h(0xcb, 0x40, 0x09, 0x21, 0xfb, 0x54, 0x44, 0x2d, 0x18), math.Pi},
	{"fixstr", h(0xa3, "abc"), "abc"},
	{"empty fixstr", h(0xa0), ""},
	{"str8", h(0xd9, 3, "gfx"), "gfx"},
	{"str16", h(0xda, be16(2), "hi"), "hi"},
	{"str32", h(0xdb, be32(1), "x"), "x"},
	{"str not UTF-8", h(0xa2, 0xff, 0xfe), "\xff\xfe"},
	{"bin8", h(0xc4, 2, 1, 2), []byte{1, 2}},
	{"bin16 empty", h(0xc5, be16(0)), []byte{}},
	{"bin32", h(0xc6, be32(1), 9), []byte{9}},
	{"fixarray", h(0x92, 0x01, 0xa1, "a"), []any{int64(1), "a"}},
	{"empty array", h(0x90), []any{}},
	{"array16", h(0xdc, be16(1), 0xc3), []any{true}},
	{"array32", h(0xdd, be32(2), 0xc0, 0xc2), []any{nil, false}},
	{"fixmap", h(0x82, 0xa1, "a", 0x01, 0xa1, "b", 0x90), map[string]any{"a": int64(1), "b": []any{}}},
	{"empty map", h(0x80), map[string]any{}},
	{"map16 str8 key", h(0xde, be16(1), 0xd9, 1, "k", 0xc0), map[string]any{"k": nil}},
	{"map32", h(0xdf, be32(1), 0xa0, 0xa0), map[string]any{"": ""}},
	{"nesting at the limit", nested(MaxDepth), nestedValue(MaxDepth)},
	{"kpack ref", h(0x82, 0xab, "kernel_name", 0xa9, "lib/a.so#", 0xb2, "kpack_search_paths", 0x91, 0xa4, "x.kp"),
		map[string]any{"kernel_name": "lib/a.so#", "kpack_search_paths": []any{"x.kp"}}},
}

func nestedValue(n int) any {
	var v any
	for range n {
		v = []any{v}
	}
	return v
}

var bad = []struct {
	name string
	in   []byte
	kind error
	at   int64
}{
	{"empty", nil, ErrTruncated, 0},
	{"uint16 cut", h(0xcd, 1), ErrTruncated, 0},
	{"float64 cut", h(0xcb, 1, 2, 3), ErrTruncated, 0},
	{"str8 no length", h(0xd9), ErrTruncated, 0},
	{"fixstr cut", h(0xa5, "abc"), ErrTruncated, 0},
	{"str32 huge", h(0xdb, 0xff, 0xff, 0xff, 0xff, "abc"), ErrTruncated, 0},
	{"bin32 huge", h(0xc6, 0x7f, 0xff, 0xff, 0xff), ErrTruncated, 0},
	{"array32 huge", h(0xdd, 0xff, 0xff, 0xff, 0xff, 0xc0), ErrTruncated, 0},
	{"map32 huge", h(0xdf, 0x10, 0, 0, 0, 0xa0, 0xc0), ErrTruncated, 0},
	{"map pairs cut", h(0x82, 0xa1, "a", 0xc0, 0xa1), ErrTruncated, 4},
	{"array element cut", h(0x92, 0xc0), ErrTruncated, 0},
	{"nested array element cut", h(0x91, 0x92, 0xc0, 0xcd, 1), ErrTruncated, 3},
	{"too deep", nested(MaxDepth + 1), ErrTooDeep, MaxDepth},
	{"int key", h(0x81, 0x01, 0xc0), ErrKeyType, 1},
	{"nil key", h(0x81, 0xc0, 0xc0), ErrKeyType, 1},
	{"array key", h(0x81, 0x90, 0xc0), ErrKeyType, 1},
	{"bin key", h(0x81, 0xc4, 1, 'a', 0xc0), ErrKeyType, 1},
	{"duplicate key", h(0x82, 0xa1, "a", 0x01, 0xa1, "a", 0x02), ErrDuplicateKey, 4},
	{"0xc1", h(0xc1), ErrUnsupported, 0},
	{"fixext1", h(0xd4, 1, 2), ErrUnsupported, 0},
	{"timestamp", h(0xd6, 0xff, 0, 0, 0, 0), ErrUnsupported, 0},
	{"ext8", h(0xc7, 1, 5, 0), ErrUnsupported, 0},
	{"ext inside a map", h(0x81, 0xa1, "t", 0xd8, 1), ErrUnsupported, 3},
}

func TestDecode(t *testing.T) {
	for _, c := range good {
		v, n, err := Decode(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if n != len(c.in) {
			t.Errorf("%s: used %d of %d bytes", c.name, n, len(c.in))
		}
		if !reflect.DeepEqual(v, c.want) {
			t.Errorf("%s: got %#v, want %#v", c.name, v, c.want)
		}
		// The same value with bytes after it: Decode leaves them.
		more := append(slices.Clone(c.in), 0xc0, 0xc0)
		if v, n, err := Decode(more); err != nil || n != len(c.in) || !reflect.DeepEqual(v, c.want) {
			t.Errorf("%s with trailing bytes: %#v, %d, %v", c.name, v, n, err)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, c := range bad {
		v, _, err := Decode(c.in)
		if !errors.Is(err, c.kind) {
			t.Errorf("%s: got %#v, %v; want %v", c.name, v, err, c.kind)
			continue
		}
		var e *Error
		if !errors.As(err, &e) || e.Offset != c.at {
			t.Errorf("%s: %v: offset want %d", c.name, err, c.at)
		}
		if !strings.HasPrefix(err.Error(), "msgpack: offset ") {
			t.Errorf("%s: message %q", c.name, err)
		}
	}
}

// A length that claims gigabytes must fail before allocating them.
func TestHostileLengthsDoNotAllocate(t *testing.T) {
	for _, in := range [][]byte{
		h(0xdb, 0xff, 0xff, 0xff, 0xf0),
		h(0xc6, 0xff, 0xff, 0xff, 0xf0),
		h(0xdd, 0xff, 0xff, 0xff, 0xf0),
		h(0xdf, 0xff, 0xff, 0xff, 0xf0),
		h(0x91, 0x91, 0xdd, 0xff, 0xff, 0xff, 0xf0),
	} {
		// A few small allocations (the error; the runtime's own, counted
		// process-wide) are fine, gigabytes are not.
		if got := bytesAllocated(func() { Decode(in) }); got > 1<<20 {
			t.Errorf("% x: %d bytes allocated", in, got)
		}
	}
}

// bytesAllocated returns the bytes f allocates on the heap.
func bytesAllocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestUint(t *testing.T) {
	for _, c := range []struct {
		v    any
		want uint64
		ok   bool
	}{
		{int64(7), 7, true}, {uint64(1 << 63), 1 << 63, true}, {int64(-1), 0, false}, {"7", 0, false}, {nil, 0, false},
	} {
		if got, ok := Uint(c.v); got != c.want || ok != c.ok {
			t.Errorf("Uint(%#v) = %d, %v", c.v, got, ok)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, c := range good {
		f.Add(c.in)
	}
	for _, c := range bad {
		f.Add(c.in)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		v, n, err := Decode(in)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Offset < 0 || e.Offset > int64(len(in)) {
				t.Fatalf("error %v: not an *Error inside the input", err)
			}
			return
		}
		if n <= 0 || n > len(in) {
			t.Fatalf("used %d of %d bytes", n, len(in))
		}
		// Whatever decodes, encodes and decodes back to the same value.
		enc := msgpacktest.Append(nil, v)
		v2, n2, err := Decode(enc)
		if err != nil || n2 != len(enc) {
			t.Fatalf("re-decoding %#v: %d of %d bytes, %v", v, n2, len(enc), err)
		}
		if enc2 := msgpacktest.Append(nil, v2); !bytes.Equal(enc, enc2) {
			t.Fatalf("round trip changed %#v into %#v", v, v2)
		}
	})
}
