package zenc

// Long-distance matching: a rolling hash over 64-byte windows, sampled where
// its top bits are zero, finds long repeats anywhere in the window without
// indexing every position.

type ldmMatch struct {
	start, end int // the bytes [start, end) repeat off bytes back
	off        uint32
}

const (
	ldmMin       = 64
	ldmSampleLog = 5  // one position in 32 is indexed
	ldmHashLog   = 20 // buckets
	ldmBucket    = 4  // positions per bucket
)

var gear [256]uint64

func init() {
	// Fixed pseudo-random values (splitmix64).
	x := uint64(0x9E3779B97F4A7C15)
	for i := range gear {
		x += 0x9E3779B97F4A7C15
		z := x
		z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
		z = (z ^ z>>27) * 0x94D049BB133111EB
		gear[i] = z ^ z>>31
	}
}

// findLDM returns the long matches starting in src[start:end], in
// increasing order and not overlapping, indexing src[from:start] first.
func findLDM(src []byte, from, start, end int) []ldmMatch {
	var out []ldmMatch
	if end-from < 2*ldmMin {
		return nil
	}
	// About one bucket per four sampled positions, at most 1<<ldmHashLog.
	hashLog := uint(10)
	for hashLog < ldmHashLog && 1<<(hashLog+ldmSampleLog+2) < end-from {
		hashLog++
	}
	table := make([]int32, ldmBucket<<hashLog)
	var h uint64
	covered := start // matches start here or after the last one found
	for p := from; p < end; p++ {
		h = h<<1 + gear[src[p]]
		if h>>(64-ldmSampleLog) != 0 || p-from < ldmMin-1 {
			continue
		}
		at := p - ldmMin + 1 // the hashed window is src[at:p+1]
		b := int(h>>(64-ldmSampleLog-hashLog)) & (1<<hashLog - 1) * ldmBucket
		bucket := table[b : b+ldmBucket : b+ldmBucket]
		if at >= covered {
			best := ldmMatch{}
			for _, c := range bucket {
				cand := int(c) - 1 + from
				if cand < from || at-cand > 1<<WindowLog {
					continue
				}
				n := matchLen(src, cand, at, len(src))
				if n < ldmMin {
					continue
				}
				off := at - cand
				s, e := at, at+n
				for s > covered && s > off && src[s-1] == src[s-1-off] {
					s--
				}
				if e-s > best.end-best.start {
					best = ldmMatch{start: s, end: e, off: uint32(off)}
				}
			}
			if best.end > 0 {
				out = append(out, best)
				covered = best.end
			}
		}
		bucket[3], bucket[2], bucket[1], bucket[0] = bucket[2], bucket[1], bucket[0], int32(at-from+1)
	}
	return out
}
