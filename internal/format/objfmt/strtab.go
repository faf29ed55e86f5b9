package objfmt

import "slices"

// strtabBuilder builds an ELF string table the way LLVM's StringTableBuilder
// (kind ELF, optimised) does, as observed from llvm-objcopy 22's output: the
// table starts with a NUL byte; the distinct non-empty strings are sorted by
// their bytes read backwards, in descending (unsigned) order, so that a string
// directly follows every longer string it is a suffix of; a string that is a
// suffix of the one before it in that order shares its bytes, the others are
// appended with a terminating NUL. The empty string is at offset 0.
type strtabBuilder struct {
	off  map[string]uint32
	size uint64
	data []byte
}

func newStrtab() *strtabBuilder { return &strtabBuilder{off: map[string]uint32{}} }

func (b *strtabBuilder) add(s string) {
	if s != "" {
		b.off[s] = 0
	}
}

// compareReversed orders a before b when, read from the end, a is greater,
// or b is a proper suffix of a.
func compareReversed(a, b string) int {
	i, j := len(a)-1, len(b)-1
	for ; i >= 0 && j >= 0; i, j = i-1, j-1 {
		if a[i] != b[j] {
			if a[i] > b[j] {
				return -1
			}
			return 1
		}
	}
	switch {
	case i >= 0:
		return -1
	case j >= 0:
		return 1
	}
	return 0
}

func (b *strtabBuilder) finalize() {
	strs := make([]string, 0, len(b.off))
	for s := range b.off {
		strs = append(strs, s)
	}
	slices.SortFunc(strs, compareReversed)
	data := []byte{0}
	prev, prevOff := "", uint32(0)
	for _, s := range strs {
		if prev != "" && len(s) <= len(prev) && prev[len(prev)-len(s):] == s {
			b.off[s] = prevOff + uint32(len(prev)-len(s))
			continue
		}
		prev, prevOff = s, uint32(len(data))
		b.off[s] = prevOff
		data = append(data, s...)
		data = append(data, 0)
	}
	b.data = data
	b.size = uint64(len(data))
}

func (b *strtabBuilder) offset(s string) uint32 {
	if s == "" {
		return 0
	}
	return b.off[s]
}
