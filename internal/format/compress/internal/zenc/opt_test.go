package zenc

import (
	"bytes"
	"math/rand"
	"testing"
)

// TestOptimalBeatsLazy: the optimal parser, given the same match finder's
// reach, writes no more than the lazy one on inputs with repeats, and
// decodes to its input.
func TestOptimalBeatsLazy(t *testing.T) {
	in := inputs()
	lazy := params{minMatch: 4, hashLog: 20, chainLog: 22, depth: 64, lazy: 2, targetLen: 256, ldm: true}
	opt := levelParams(19, 1<<30)
	opt.split = false // the parse alone
	for _, name := range []string{"mixed", "short repeats", "text", "bundle.bin"} {
		src, ok := in[name]
		if !ok {
			continue
		}
		a, b := encode(nil, src, lazy, 1), encode(nil, src, opt, 1)
		if !bytes.Equal(decode(t, b), src) {
			t.Fatalf("%s: round trip differs", name)
		}
		if len(b) > len(a)+16 { // some slack for tiny outputs
			t.Errorf("%s: optimal parse %d bytes, lazy %d", name, len(b), len(a))
		}
	}
}

// TestReadAhead: treeInsert's read-ahead of the next position's head gives
// the matches a plain read gives (a stale head would lose matches, not
// bytes, so only the output's size and bytes can tell).
func TestReadAhead(t *testing.T) {
	src := inputs()["mixed"]
	p := levelParams(19, 1<<30)
	want := encode(nil, src, p, 1)
	defer func() { noReadAhead = false }()
	noReadAhead = true
	if got := encode(nil, src, p, 1); !bytes.Equal(got, want) {
		t.Errorf("without read-ahead %d bytes, with %d", len(got), len(want))
	}
}

// TestTreeFindsAll: the candidates the tree lists at a position are
// real matches, each longer than the one before, and the longest equals
// the longest match a full scan of the window finds (the tree is deep
// enough here to hold every position).
func TestTreeFindsAll(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	src := make([]byte, 1<<16)
	for i := range src {
		src[i] = "abcd"[r.Intn(4)]
	}
	p := params{minMatch: 4, hashLog: 16, chainLog: 18, depth: 1 << 20, targetLen: 256, opt: true}
	// Search (and insert) fresh positions, checking what they list.
	m := newMatcher(src, p, 0, len(src))
	for q := 0; q < len(src)-8; q++ {
		cands, _, _ := m.treeInsert(q, len(src), p.minMatch-1, nil, true)
		m.next = q + 1
		prev := 0
		for _, c := range cands {
			if c.length <= prev || int(c.off) > q || matchLen(src, q-int(c.off), q, len(src)) < c.length {
				t.Fatalf("position %d: bad candidate %+v after length %d", q, c, prev)
			}
			prev = c.length
		}
		if q%97 != 0 {
			continue
		}
		longest := 0
		for c := 0; c < q; c++ {
			longest = max(longest, matchLen(src, c, q, len(src)))
		}
		if longest >= p.minMatch && longest <= optNum && prev != longest {
			t.Fatalf("position %d: longest candidate %d, longest match %d", q, prev, longest)
		}
	}
}

// TestSplitCutsWhereStatisticsChange: a block whose halves use different
// bytes and offsets is cut in two, smaller than coded whole; a block of
// one kind is not made larger by cutting.
func TestSplitCutsWhereStatisticsChange(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	half := func(alphabet string, period int) []byte {
		b := make([]byte, blockMax/2)
		for i := range b {
			if i >= period && r.Intn(8) != 0 {
				b[i] = b[i-period]
			} else {
				b[i] = alphabet[r.Intn(len(alphabet))]
			}
		}
		return b
	}
	mixed := append(half("abcdefgh", 24), half("01234567ABCDEFGH", 1000)...)
	same := append(half("abcdefgh", 24), half("abcdefgh", 24)...)
	p := levelParams(19, 1<<30)
	for _, c := range []struct {
		name string
		src  []byte
		cut  bool
	}{{"mixed", mixed, true}, {"same", same, false}} {
		p.split = true
		split := encode(nil, c.src, p, 1)
		p.split = false
		whole := encode(nil, c.src, p, 1)
		if !bytes.Equal(decode(t, split), c.src) {
			t.Fatalf("%s: round trip differs", c.name)
		}
		n := countBlocks(t, split)
		if c.cut && (n < 2 || len(split) >= len(whole)) {
			t.Errorf("%s: %d blocks, %d bytes; whole %d bytes", c.name, n, len(split), len(whole))
		}
		if !c.cut && len(split) > len(whole) {
			t.Errorf("%s: cut into %d blocks, %d bytes; whole %d bytes", c.name, n, len(split), len(whole))
		}
		t.Logf("%s: %d blocks, %d bytes; whole %d bytes", c.name, n, len(split), len(whole))
	}
}

// countBlocks counts the blocks of a frame written by appendFrameHeader.
func countBlocks(t *testing.T, frame []byte) int {
	t.Helper()
	v := &counter{}
	if err := readFrame(&bytesSource{b: frame}, v); err != nil {
		t.Fatal(err)
	}
	return v.blocks
}

type counter struct {
	pos    int64
	blocks int
}

func (c *counter) literals(b []byte) error { c.pos += int64(len(b)); return nil }
func (c *counter) sequence(lits []byte, off, n int) error {
	c.pos += int64(len(lits) + n)
	return nil
}
func (c *counter) repeat(b byte, n int) error { c.pos += int64(n); return nil }
func (c *counter) endBlock() error            { c.blocks++; return nil }
func (c *counter) size() int64                { return c.pos }
func (c *counter) expect(int64)               {}

// TestCandidatesFromTheStart: a fresh parser lists the tree's matches
// before any repeat offset or long-distance match has given it one (its
// first list once came back empty, and the parse found no match in a
// periodic input).
func TestCandidatesFromTheStart(t *testing.T) {
	src := bytes.Repeat([]byte("0123456789"), 100)
	o := newOptimal(newMatcher(src, levelParams(19, 1<<30), 0, len(src)))
	var got []cand
	for q := 0; q <= 10; q++ {
		got = o.candidates(q, len(src), [3]uint32{1, 4, 8}, uint32(q))
	}
	if len(got) == 0 || got[len(got)-1].off != 10 || got[len(got)-1].length != len(src)-10 {
		t.Errorf("candidates at 10: %v, want a match 10 back to the end", got)
	}
}

// TestTablesBoundWorkers: the segments parsed at once hold at most
// maxTables of match-finder tables, whatever the number of CPUs; small
// tables leave every CPU its segment.
func TestTablesBoundWorkers(t *testing.T) {
	p := levelParams(22, 1<<30)
	bounds := segments(1<<30, p)
	n := parsers(p, bounds, 64)
	if per := p.tableBytes(bounds[1] - bounds[0] + warmBytes); n < 1 || n*per > maxTables {
		t.Errorf("level 22: %d segments at once, %d bytes of tables each", n, per)
	}
	if n := parsers(levelParams(3, 1<<30), segments(1<<30, levelParams(3, 1<<30)), 64); n != 64 {
		t.Errorf("level 3: %d segments at once, want 64", n)
	}
}

// TestFarHistory: a segment's parser finds a short repeat of bytes before
// its tree's warm-up (farFill), which it would not find otherwise.
func TestFarHistory(t *testing.T) {
	// The table keeps the latest position of each hash: the repeated bytes
	// are among the last before the warm-up.
	const far, warm, at = 4<<20 - 1000, 4 << 20, 6 << 20
	src := make([]byte, 8<<20)
	rand.New(rand.NewSource(7)).Read(src)
	copy(src[at:at+12], src[far:])
	p := levelParams(19, len(src))
	for _, fill := range []bool{false, true} {
		m := newMatcher(src, p, 0, len(src))
		if fill {
			m.farFill(0, warm)
		}
		m.warm(warm, at)
		o := newOptimal(m)
		found := false
		for _, c := range o.candidates(at, len(src), [3]uint32{1, 4, 8}, 1) {
			found = found || c.off == at-far && c.length >= 12
		}
		if found != fill {
			t.Errorf("farFill %v: the 12-byte repeat %d back found: %v", fill, at-far, found)
		}
	}
}

// TestPricesKeptUp: the prices commit keeps up a sequence at a time (add,
// then setSums) are those worked out from the frequencies afresh.
func TestPricesKeptUp(t *testing.T) {
	rng := rand.New(rand.NewSource(12))
	src := make([]byte, 1<<16)
	for i := range src {
		src[i] = byte(rng.Intn(40))
	}
	var s optStats
	for block := range 3 {
		s.newBlock(src)
		for range 2000 {
			lits := src[rng.Intn(len(src)-300):][:rng.Intn(300)]
			s.add(lits, 1+uint32(rng.Intn(1<<20)), 3+rng.Intn(1000))
			if rng.Intn(4) == 0 {
				s.setSums()
				fresh := s
				fresh.setWeights()
				for c := range 256 {
					if got, want := s.litPrice(byte(c)), fresh.litPrice(byte(c)); got != want {
						t.Fatalf("block %d: literal %d costs %d, afresh %d", block, c, got, want)
					}
				}
				for _, n := range []uint32{0, 1, 5, 17, 63, 64, 100, 5000, blockMax} {
					if got, want := s.llPrice(n), fresh.llPrice(n); got != want {
						t.Fatalf("block %d: literal run %d costs %d, afresh %d", block, n, got, want)
					}
				}
				for n := 3; n < 5000; n += 1 + n/8 {
					if got, want := s.mlPrice(n), fresh.mlPrice(n); got != want {
						t.Fatalf("block %d: match length %d costs %d, afresh %d", block, n, got, want)
					}
				}
				for ov := uint32(1); ov < 1<<30; ov = ov*3 + 1 {
					if got, want := s.ofPrice(ov), fresh.ofPrice(ov); got != want {
						t.Fatalf("block %d: offset value %d costs %d, afresh %d", block, ov, got, want)
					}
				}
			}
		}
	}
}
