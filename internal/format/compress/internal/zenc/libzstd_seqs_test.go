package zenc

import (
	"encoding/binary"
	"os"
	"sort"
	"strconv"
	"testing"
)

// TestLibzstdSequences codes libzstd's sequences for $ZENC_SAMPLE
// ($ZENC_LIBZSTD_SEQS, written by scripts/libzstd-seqs.py at the level in
// $ZENC_LEVELS) with our coder, and compares them 128 KiB block by block
// with our own parse at that level: the parse is what differs, and the
// blocks where ours loses most say where to look (rocSOLVER's far short
// matches were found so). A measurement, not a check: it skips unless both
// variables are set.
func TestLibzstdSequences(t *testing.T) {
	src, err1 := os.ReadFile(os.Getenv("ZENC_SAMPLE"))
	raw, err2 := os.ReadFile(os.Getenv("ZENC_LIBZSTD_SEQS"))
	level, err3 := strconv.Atoi(os.Getenv("ZENC_LEVELS"))
	if err1 != nil || err2 != nil || err3 != nil {
		t.Skip("set ZENC_SAMPLE, ZENC_LIBZSTD_SEQS and ZENC_LEVELS (one level)")
	}
	type stat struct{ size, seqs, lits int }
	add := func(m map[int]*stat, start, size int, seqs []seq) {
		s := m[start>>17]
		if s == nil {
			s = &stat{}
			m[start>>17] = s
		}
		s.size += size
		for _, q := range seqs {
			s.seqs++
			s.lits += int(q.litLen)
		}
	}
	theirs, ours := map[int]*stat{}, map[int]*stat{}
	c := newCoder()
	var dst []byte
	pos, start := 0, 0
	var block []seq
	for i := 0; i+16 <= len(raw); i += 16 {
		off := binary.LittleEndian.Uint32(raw[i:])
		ll := binary.LittleEndian.Uint32(raw[i+4:])
		ml := binary.LittleEndian.Uint32(raw[i+8:])
		pos += int(ll + ml)
		if pos > len(src) {
			t.Fatalf("libzstd's sequences run past the input's %d bytes", len(src))
		}
		if ml != 0 {
			block = append(block, seq{litLen: ll, matchLen: ml, off: off})
			continue
		}
		n := len(dst)
		dst = c.encodeSplit(dst, src[start:pos], block, pos == len(src))
		add(theirs, start, len(dst)-n, block)
		block, start = block[:0], pos
	}
	if pos != len(src) {
		t.Fatalf("libzstd's sequences cover %d of %d bytes", pos, len(src))
	}
	theirTotal := len(dst)

	p := levelParams(level, len(src))
	bounds := segments(len(src), p)
	var chunks []sampleChunk
	if p.ldm {
		chunks = sampleChunks(src, bounds, 1)
	}
	c, dst = newCoder(), dst[:0]
	for i := range len(bounds) - 1 {
		out := make(chan parsed, (bounds[i+1]-bounds[i])/blockMax+1)
		parseSegment(src, p, bounds, chunks, i, out, make(chan []seq))
		for b := range out {
			n := len(dst)
			dst = c.encodeSplit(dst, src[b.start:b.end], b.seqs, b.end == len(src))
			add(ours, b.start, len(dst)-n, b.seqs)
		}
	}
	t.Logf("level %d: our parse %d bytes, libzstd's parse with our coder %d (%+.3f%%)",
		level, len(dst), theirTotal, 100*float64(len(dst)-theirTotal)/float64(theirTotal))
	var keys []int
	for k := range ours {
		keys = append(keys, k)
	}
	diff := func(k int) int { return ours[k].size - theirs[k].size }
	sort.Slice(keys, func(i, j int) bool { return diff(keys[i]) > diff(keys[j]) })
	for _, k := range keys[:min(10, len(keys))] {
		o, l := ours[k], theirs[k]
		t.Logf("block %4d: ours %6d bytes (%5d sequences, %6d literals), libzstd's %6d (%5d, %6d): %+d",
			k, o.size, o.seqs, o.lits, l.size, l.seqs, l.lits, diff(k))
	}
}
