package zenc

import "math/bits"

// Literal-length, match-length and offset codes (RFC 8878, 3.1.1.3.2.1).

var llBits = [36]uint8{
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	1, 1, 1, 1, 2, 2, 3, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
}

var mlBits = [53]uint8{
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
}

// llBase and mlBase are the codes' baselines: package variables set by
// their initializers (not init), so that the decoding tables built from
// them at initialization (llDec, mlDec) see them.
var (
	llBase = baselines(llBits[:], 0)
	mlBase = baselines(mlBits[:], 3)
)

// baselines returns each code's first value, from first, given each
// code's extra bits.
func baselines(bits []uint8, first uint32) (t [64]uint32) {
	for c, nb := range bits {
		t[c] = first
		first += 1 << nb
	}
	return t
}

// llCodeOf and mlCodeOf are lookup tables for the short lengths; longer
// lengths take the code from their highest bit.
var llCodeOf [64]uint8
var mlCodeOf [128]uint8

func init() {
	for c := range llBits {
		for v := llBase[c]; v < llBase[c]+1<<llBits[c] && v < 64; v++ {
			llCodeOf[v] = uint8(c)
		}
	}
	for c := range mlBits {
		for v := mlBase[c] - 3; v < mlBase[c]-3+1<<mlBits[c] && v < 128; v++ {
			mlCodeOf[v] = uint8(c)
		}
	}
}

func llCode(ll uint32) uint8 {
	if ll < 64 {
		return llCodeOf[ll]
	}
	return uint8(bits.Len32(ll)-1) + 19
}

// mlCode takes the match length minus 3.
func mlCode(m uint32) uint8 {
	if m < 128 {
		return mlCodeOf[m]
	}
	return uint8(bits.Len32(m)-1) + 36
}

// Maximum symbols and accuracy logs of the three tables.
const (
	maxLLCode = 35
	maxMLCode = 52
	maxOFCode = 31
	maxLLLog  = 9
	maxMLLog  = 9
	maxOFLog  = 8
)

// The predefined distributions.
var (
	llDefault = []int16{4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1,
		2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1,
		-1, -1, -1, -1}
	mlDefault = []int16{1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1,
		-1, -1, -1, -1, -1}
	ofDefault = []int16{1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1}

	llPredef = predefined(llDefault, 6)
	mlPredef = predefined(mlDefault, 6)
	ofPredef = predefined(ofDefault, 5)
)
