// Package zenc is a zstd encoder (RFC 8878) tuned for offload bundles: a
// whole input in memory, one frame, matches across the whole window (the
// code objects of different GPUs repeat each other megabytes apart), and
// entropy coding that reuses klauspost/compress's Huffman coder for
// literals. It writes frames any zstd decoder reads; it never writes
// dictionaries or checksums.
package zenc

import (
	"encoding/binary"
	"runtime"
	"sync"

	"github.com/goffload/goffload/internal/fault"
)

const (
	magic = 0xFD2FB528
	// WindowLog is the largest match distance, as a power of two: LLVM's
	// long-distance matching reaches 2^27 back, and so do we.
	WindowLog = 27
)

// appendFrameHeader writes a frame header recording the content size n.
// Frames up to the window are single-segment (the window is the content).
func appendFrameHeader(dst []byte, n uint64) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, magic)
	single := n <= 1<<WindowLog
	var fcsFlag byte
	switch {
	case single && n < 256:
		fcsFlag = 0
	case n >= 256 && n < 65536+256:
		fcsFlag = 1
	case n <= 0xFFFFFFFF:
		fcsFlag = 2
	default:
		fcsFlag = 3
	}
	fhd := fcsFlag << 6
	if single {
		fhd |= 1 << 5
	}
	dst = append(dst, fhd)
	if !single {
		dst = append(dst, (WindowLog-10)<<3)
	}
	switch fcsFlag {
	case 0:
		dst = append(dst, byte(n))
	case 1:
		dst = binary.LittleEndian.AppendUint16(dst, uint16(n-256))
	case 2:
		dst = binary.LittleEndian.AppendUint32(dst, uint32(n))
	default:
		dst = binary.LittleEndian.AppendUint64(dst, n)
	}
	return dst
}

// Encode appends one zstd frame holding src to dst, at a zstd level
// (libzstd's scale: 1..22, 0 for 3, negative for the fastest), using up to
// workers goroutines (0: GOMAXPROCS). src may be a mapped file: a memory
// fault reading it, in any of those goroutines, is raised in the caller's
// once they are all done, for its fault.Catch.
func Encode(dst, src []byte, level, workers int) []byte {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	p := levelParams(level, len(src))
	if level >= 5 && (p.fast || p.row) && looksText(src) {
		p = textParams(level)
	}
	return encode(dst, src, p, workers)
}

// Inputs are cut into segments that workers parse in parallel; each
// segment first indexes the data before it (warm bytes), so matches reach
// back across segments, and the segments' blocks are entropy-coded in order.
// minSegment is a variable so that tests can exercise segments on small
// inputs.
var minSegment = 4 << 20

// fastSegment is the smallest segment of the fast strategy: it parses
// faster than the others index their warm-up bytes, so smaller segments
// would cost more CPU time than they save wall time.
var fastSegment = 64 << 20

// rowWhole is the size below which the row parser (levels 10-15) takes the
// input as one segment: a second segment indexes the first's last 4 MiB again
// and holds its own 16 MiB of rows, which on the 7-12 MB inputs measured
// cost 10-15% of the CPU time, while one segment still took 0.6-0.7 of
// libzstd's wall time there (the coder, the verifier and MD5 run beside it).
var rowWhole = 16 << 20

// optSegment is the smallest segment of optimal parsing: a segment's
// first megabytes find fewer matches than they would after the segment
// before, and its warm-up costs time, so they pay only on large inputs.
var optSegment = 16 << 20

const (
	maxSegment = 32 << 20
	warmBytes  = 4 << 20  // hash tables
	warmLDM    = 32 << 20 // long-distance matches (their table only: samples are shared)
	warmFar    = 32 << 20 // the optimal parser's table of older positions (farFill)
)

// segments cuts n bytes into segment boundaries (multiples of blockMax):
// half the input each, between minSegment and maxSegment. The cut depends
// on the input's size only, never on the number of workers, so the output
// is the same on every machine.
func segments(n int, p params) []int {
	size := max(min(n/2, maxSegment), minSegment)
	switch {
	case p.fast:
		// Within parseFast's positions (fastPosBits) with the warm-up.
		size = min(max(size, fastSegment), 1<<fastPosBits-warmBytes-blockMax)
	case p.opt:
		size = max(size, optSegment)
	case p.row && n < rowWhole:
		size = n
	}
	size = (size + blockMax - 1) / blockMax * blockMax
	b := []int{0}
	for s := size; s < n; s += size {
		b = append(b, s)
	}
	return append(b, n)
}

// maxTables bounds the match finders' tables of the segments parsed at
// once.
const maxTables = 1 << 30

// parsers is how many of the segments cut at bounds are parsed at once by
// up to workers goroutines: each holds its own tables, so on a machine
// with many CPUs fewer than would need more than maxTables in all (levels
// 20-22 take 160 MiB a segment).
func parsers(p params, bounds []int, workers int) int {
	return max(1, min(workers, maxTables/p.tableBytes(bounds[1]-bounds[0]+warmBytes)))
}

// A segment's parsed blocks, sent in order.
type parsed struct {
	start, end int
	seqs       []seq
}

func encode(dst, src []byte, p params, workers int) []byte {
	dst = appendFrameHeader(dst, uint64(len(src)))
	if len(src) == 0 {
		return appendRaw(dst, nil, 1)
	}
	c := newCoder()
	bounds := segments(len(src), p)
	workers = parsers(p, bounds, workers)
	var chunks []sampleChunk
	if p.ldm {
		chunks = sampleChunks(src, bounds, workers)
	}
	nseg := len(bounds) - 1
	outs := make([]chan parsed, nseg)
	for i := range outs {
		outs[i] = make(chan parsed, (bounds[i+1]-bounds[i]+blockMax-1)/blockMax)
	}
	// src may be a mapped file that faults (package fault): a goroutine
	// that faults ends its segment, the coder stops coding but goes on
	// draining, and the fault is raised here once all have stopped.
	var faults fault.First
	// At most workers+1 segments are parsed ahead of the coder.
	tokens := make(chan struct{}, workers+1)
	free := make(chan []seq, 64)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, nseg) {
		wg.Go(func() {
			for i := range next {
				if faults.Failed() {
					close(outs[i]) // no use parsing on
					continue
				}
				faults.Keep(func() { parseSegment(src, p, bounds, chunks, i, outs[i], free) })
			}
		})
	}
	go func() {
		for i := range nseg {
			tokens <- struct{}{}
			next <- i
		}
		close(next)
	}()
	for i := range nseg {
		for b := range outs[i] {
			if !faults.Failed() {
				faults.Keep(func() {
					if p.split {
						dst = c.encodeSplit(dst, src[b.start:b.end], b.seqs, b.end == len(src))
					} else {
						dst = c.encodeBlock(dst, src[b.start:b.end], b.seqs, b.end == len(src))
					}
				})
			}
			select {
			case free <- b.seqs[:0]:
			default:
			}
		}
		<-tokens
	}
	wg.Wait()
	faults.Raise()
	return dst
}

// parseSegment parses segment i block by block into out, then closes it.
// Sequence slices go back to free once coded, for the next blocks.
func parseSegment(src []byte, p params, bounds []int, chunks []sampleChunk, i int, out chan<- parsed, free chan []seq) {
	defer close(out)
	start, end := bounds[i], bounds[i+1]
	warm := max(0, start-warmBytes)
	base := warm
	if p.opt {
		base = max(0, start-warmFar)
	}
	m := newMatcher(src, p, base, end-base)
	if p.ldm {
		m.ldm = findLDM(src, chunks, i, max(0, start-warmLDM), p.ldmLog)
	}
	if base < warm {
		m.farFill(base, warm)
	}
	m.warm(warm, max(warm, min(start, len(src)-8)))
	var o *optimal
	if p.opt {
		o = newOptimal(m)
	}
	// A fresh slice takes the last block's count of sequences and a
	// quarter more: grown by append, each block's would leave three times
	// its size in fresh pages behind (the bundler runs without a collector).
	want := 1024
	for b := start; b < end; b += blockMax {
		e := min(b+blockMax, end)
		var seqs []seq
		select {
		case seqs = <-free:
		default:
		}
		if cap(seqs) < want {
			seqs = make([]seq, 0, want)
		}
		switch {
		case o != nil:
			seqs = o.parse(b, e, seqs)
		case p.fast:
			seqs = m.parseFast(b, e, seqs)
		case p.row:
			seqs = m.parseRow(b, e, seqs)
		default:
			seqs = m.parse(b, e, seqs)
		}
		want = max(want, min(len(seqs)+len(seqs)/4, blockMax/3))
		out <- parsed{b, e, seqs}
	}
}

// parallel calls f(0..n-1) on up to workers goroutines. A fault reading
// mapped memory in one of them is raised in the caller once all are done.
func parallel(n, workers int, f func(int)) {
	if workers <= 1 || n <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var faults fault.First
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for i := range next {
				faults.Keep(func() { f(i) })
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	faults.Raise()
}
