package zenc

// Long-distance matching: a rolling hash over 64-byte windows, sampled where
// its top bits are zero, finds long repeats anywhere in the window without
// indexing every position.

import "unsafe"

type ldmMatch struct {
	start, end int // the bytes [start, end) repeat off bytes back
	off        uint32
}

const (
	ldmMin       = 64
	ldmSampleLog = 5  // one position in 32 is indexed
	ldmHashLog   = 20 // buckets
	ldmBucket    = 4  // positions per bucket
	ldmAhead     = 16 // samples whose buckets findLDM prefetches ahead
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

// A sampleChunk holds the samples of one segment: positions whose 64-byte
// window ends in [base, base+len).
type sampleChunk struct {
	base, end int
	s         []ldmSample
}

// An ldmSample is a position where the rolling hash of the 64 bytes ending
// there has its top ldmSampleLog bits clear.
type ldmSample struct {
	end int32  // the window's last byte, relative to the chunk's base
	h   uint32 // the 32 hash bits below the clear ones
}

// sampleChunks runs the rolling hash over every segment of src (bounds as
// from segments), in parallel.
func sampleChunks(src []byte, bounds []int, workers int) []sampleChunk {
	chunks := make([]sampleChunk, len(bounds)-1)
	parallel(len(chunks), workers, func(i int) {
		base, end := bounds[i], bounds[i+1]
		// The hash of a window depends on its 64 bytes only: start 63
		// bytes early and drop what ends before base.
		from := max(0, base-(ldmMin-1))
		out := gearSamples(src[from:end], make([]ldmSample, 0, (end-from)>>ldmSampleLog+(end-from)>>(ldmSampleLog+3)+16))
		skip := base - from
		if base == 0 {
			skip = ldmMin - 1
		}
		k := 0
		for k < len(out) && int(out[k].end) < skip {
			k++
		}
		out = out[k:]
		for j := range out {
			out[j].end -= int32(base - from)
		}
		chunks[i] = sampleChunk{base: base, end: end, s: out}
	})
	return chunks
}

func gearSamples(src []byte, out []ldmSample) []ldmSample {
	var h uint64
	const limit = 1 << (64 - ldmSampleLog)
	// Four bytes a round: the same hash, fewer bounds checks and branches.
	n := len(src) &^ 3
	i := 0
	for ; i < n; i += 4 {
		s := src[i : i+4 : i+4]
		h = h<<1 + gear[s[0]]
		if h < limit {
			out = append(out, ldmSample{int32(i), uint32(h >> (32 - ldmSampleLog))})
		}
		h = h<<1 + gear[s[1]]
		if h < limit {
			out = append(out, ldmSample{int32(i + 1), uint32(h >> (32 - ldmSampleLog))})
		}
		h = h<<1 + gear[s[2]]
		if h < limit {
			out = append(out, ldmSample{int32(i + 2), uint32(h >> (32 - ldmSampleLog))})
		}
		h = h<<1 + gear[s[3]]
		if h < limit {
			out = append(out, ldmSample{int32(i + 3), uint32(h >> (32 - ldmSampleLog))})
		}
	}
	for ; i < len(src); i++ {
		h = h<<1 + gear[src[i]]
		if h < limit {
			out = append(out, ldmSample{int32(i), uint32(h >> (32 - ldmSampleLog))})
		}
	}
	return out
}

// findLDM returns the long matches starting in chunk k, in increasing order
// and not overlapping, after indexing the samples of the chunks before it
// from position from on. It uses the samples whose top sampleLog (at least
// ldmSampleLog) bits are clear: one position in 1<<sampleLog.
func findLDM(src []byte, chunks []sampleChunk, k, from int, sampleLog uint) []ldmMatch {
	sampleLog = max(sampleLog, ldmSampleLog)
	extra := sampleLog - ldmSampleLog // more top bits that must be clear
	limit := uint64(1) << (32 - extra)
	n := 0
	first := k
	for first > 0 && chunks[first-1].end > from {
		first--
	}
	for _, c := range chunks[first : k+1] {
		n += len(c.s) >> (sampleLog - ldmSampleLog)
	}
	if n == 0 {
		return nil
	}
	// About one bucket per four samples, at most 1<<ldmHashLog.
	hashLog := uint(8)
	for hashLog < ldmHashLog && 1<<(hashLog+2) < n {
		hashLog++
	}
	// An entry is the position (relative to from, plus one) in its high
	// half and check bits of the hash in its low half, so that most
	// candidates are refused without reading src.
	table := freshTable[uint64](ldmBucket << hashLog)
	var out []ldmMatch
	covered := chunks[k].base // matches start here or after the last one found
	bucketOf := func(h uint32) int { return int(h>>(32-extra-hashLog)) & (1<<hashLog - 1) * ldmBucket }
	for ci, c := range chunks[first : k+1] {
		own := first+ci == k
		for j, sm := range c.s {
			if havePrefetch && j+ldmAhead < len(c.s) {
				// The table is megabytes: ask for a later sample's bucket
				// now, so that it is in the cache when its turn comes.
				if h := c.s[j+ldmAhead].h; uint64(h) < limit {
					prefetch((*byte)(unsafe.Pointer(&table[bucketOf(h)])))
				}
			}
			if uint64(sm.h) >= limit {
				continue
			}
			at := c.base + int(sm.end) - ldmMin + 1 // the window is src[at:at+ldmMin]
			if at < from {
				continue
			}
			b := bucketOf(sm.h)
			check := sm.h
			bucket := table[b : b+ldmBucket : b+ldmBucket]
			if own && at >= covered {
				best := ldmMatch{}
				for _, e := range bucket {
					if uint32(e) != check || e == 0 {
						continue
					}
					cand := int(e>>32) - 1 + from
					if at-cand > 1<<WindowLog {
						continue
					}
					n := matchLen(src, cand, at, len(src))
					if n < ldmMin {
						continue
					}
					off := at - cand
					s, e := at-matchBack(src, cand, at, max(covered, off)), at+n
					if e-s > best.end-best.start {
						best = ldmMatch{start: s, end: e, off: uint32(off)}
					}
				}
				if best.end > 0 {
					out = append(out, best)
					covered = best.end
				}
			}
			bucket[3], bucket[2], bucket[1], bucket[0] = bucket[2], bucket[1], bucket[0], uint64(at-from+1)<<32|uint64(check)
		}
	}
	return out
}
