// Package msgpacktest writes msgpack for tests: the smallest form of every
// value and map keys sorted, so that one value always gives the same bytes
// (the KPAK test files are built with it, and the msgpack reader's fuzz
// target encodes what it decoded to check a round trip).
package msgpacktest

import (
	"encoding/binary"
	"maps"
	"math"
	"slices"
)

// Append appends v: nil, bool, int, int64, uint64, float64, string,
// []byte, []string, []any or map[string]any of those. It panics on any
// other type.
func Append(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, 0xc0)
	case bool:
		if x {
			return append(b, 0xc3)
		}
		return append(b, 0xc2)
	case int:
		return Append(b, int64(x))
	case int64:
		switch {
		case x >= 0:
			return Append(b, uint64(x))
		case x >= -32:
			return append(b, byte(x))
		}
		return binary.BigEndian.AppendUint64(append(b, 0xd3), uint64(x))
	case uint64:
		switch {
		case x <= 0x7f:
			return append(b, byte(x))
		case x <= math.MaxUint8:
			return append(b, 0xcc, byte(x))
		case x <= math.MaxUint16:
			return binary.BigEndian.AppendUint16(append(b, 0xcd), uint16(x))
		case x <= math.MaxUint32:
			return binary.BigEndian.AppendUint32(append(b, 0xce), uint32(x))
		}
		return binary.BigEndian.AppendUint64(append(b, 0xcf), x)
	case float64:
		return binary.BigEndian.AppendUint64(append(b, 0xcb), math.Float64bits(x))
	case string:
		switch n := len(x); {
		case n < 32:
			b = append(b, 0xa0|byte(n))
		case n <= math.MaxUint8:
			b = append(b, 0xd9, byte(n))
		case n <= math.MaxUint16:
			b = binary.BigEndian.AppendUint16(append(b, 0xda), uint16(n))
		default:
			b = binary.BigEndian.AppendUint32(append(b, 0xdb), uint32(n))
		}
		return append(b, x...)
	case []byte:
		return append(binary.BigEndian.AppendUint32(append(b, 0xc6), uint32(len(x))), x...)
	case []string:
		a := make([]any, len(x))
		for i, s := range x {
			a[i] = s
		}
		return Append(b, a)
	case []any:
		b = appendLen(b, 0x90, 0xdc, len(x))
		for _, e := range x {
			b = Append(b, e)
		}
		return b
	case map[string]any:
		b = appendLen(b, 0x80, 0xde, len(x))
		for _, k := range slices.Sorted(maps.Keys(x)) {
			b = Append(Append(b, k), x[k])
		}
		return b
	}
	panic("msgpacktest: unexpected value")
}

// appendLen appends an array's or map's head: fix for up to 15 elements,
// long (16 bits) or long+1 (32 bits) beyond.
func appendLen(b []byte, fix, long byte, n int) []byte {
	switch {
	case n < 16:
		return append(b, fix|byte(n))
	case n <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(b, long), uint16(n))
	}
	return binary.BigEndian.AppendUint32(append(b, long+1), uint32(n))
}
