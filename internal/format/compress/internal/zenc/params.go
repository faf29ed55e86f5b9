package zenc

// levelParams chooses the match finder's settings for a libzstd level and
// an input of n bytes. The choice was made by measurement against libzstd
// 1.5.4 with long-distance matching, as LLVM 22 calls it, on HIP fat
// binaries and on text bundles (compress/NOTES.md): at levels 9-22 our
// output is no larger than libzstd's on ten corpora but at some of 19-22,
// at 1-8 on nine of them (rocSPARSE 5.7.1's bundle is 1.2% larger at 7-8).
// Small inputs take the settings of higher levels, which cost milliseconds
// there.
func levelParams(level, n int) params {
	switch {
	case level == 0:
		level = 3
	case level > 22:
		level = 22
	}
	if n < 1<<20 && level < 16 {
		// Hash chains of every position, 64 deep, with long-distance
		// matches: smaller than libzstd at every level, in milliseconds.
		return params{minMatch: 4, hashLog: 20, chainLog: 22, depth: 64, lazy: 2, targetLen: 256, ldm: true}
	}
	switch {
	case level <= 2:
		// parseFast: the repeat offsets, then one hash table of 5-byte
		// and one of 8-byte prefixes (the latest position each), one byte
		// of lazy evaluation; tables small enough for the cache. Greedy
		// parsing or smaller tables cost as much CPU time here and up to
		// 7% in size on two-GPU bundles, and 4-byte matches cost more
		// than they gain on rocBLAS (compress/NOTES.md). After a match,
		// the latest offset one byte on is taken when it matches 4 bytes.
		return params{minMatch: 5, hashLog: 15, longLog: 17, lazy: 1, targetLen: 128, fast: true, repNext: 4}
	case level <= 3:
		// The same through runs of literals at most 32 bytes at a time.
		// Among incompressible bytes with a short repeat every few hundred
		// (R5's data a GPU back), the step growing unbounded (one more
		// every 256 literals) passed a repeat now and then, the run grew,
		// the step with it, and the repeats after it were passed too:
		// blocks that libzstd wrote in 108 of 128 KiB were stored raw
		// here. R5 2% smaller (below libzstd's level 3 now), R2 and R4
		// 0.6-1.3%, the others within 0.1%. Level 1 takes no bound:
		// smaller than libzstd there already, and cheaper. 16 and 24 were
		// as small as 32 (within 0.3% on six corpora). The latest offset
		// one byte on is taken from 4 bytes, as at level 1: from 8 it was
		// 0.1-1.2% smaller on the ten corpora but cost rocRAND 9% more CPU
		// time (145 -> 132 ms in 12 alternating runs, libzstd's level 3
		// 129) and R5 10%; from 4 every corpus stays 0.6% (R5) to 18%
		// below libzstd's level 3.
		return params{minMatch: 5, hashLog: 15, longLog: 17, lazy: 1, targetLen: 128, fast: true, repNext: 4, stride: 32}
	case level <= 5:
		// Level 3's with an 8-byte table of 2^18 and steps of 8 bytes at
		// most. libzstd's levels 4 and 5 are 1.3% and 2.1% smaller than
		// its 3 on R5 (7,950,993 and 7,888,273 bytes), smaller than level
		// 3's settings give; these give 7,817,794. Level 6's tables (2^16
		// of 5 bytes too) were no smaller. The latest offset one byte on
		// from 4 bytes, as at 3: from 8, 0.1-1.3% smaller but rocRAND at
		// 1.06 of libzstd's level-4 CPU time (154 against 145 ms; 140 now).
		return params{minMatch: 5, hashLog: 15, longLog: 18, lazy: 1, targetLen: 128, fast: true, repNext: 4, stride: 8}
	case level <= 6:
		// Two bytes of lazy evaluation, larger tables, steps of 8 bytes
		// at most (R5 2.6% smaller, below libzstd's).
		return params{minMatch: 5, hashLog: 16, longLog: 18, lazy: 2, targetLen: 256, fast: true, stride: 8}
	case level <= 7:
		// And chains of the positions parseFast visits, 4 deep.
		return params{minMatch: 5, hashLog: 16, longLog: 18, chainLog: 17, depth: 4, lazy: 2, targetLen: 256, fast: true, stride: 8}
	case level <= 8:
		// Larger tables of 5-byte prefixes and of chains. Chains 8 deep
		// cost rocRAND a quarter more CPU time (1.07 of libzstd's in the
		// bundler) for 0.4% in size; 4 deep, R5 is 0.2% smaller.
		return params{minMatch: 5, hashLog: 17, longLog: 18, chainLog: 18, depth: 4, lazy: 2, targetLen: 256, fast: true, stride: 8}
	case level <= 9:
		// parseRow with 2^21 rows, 6 candidates, one position of lazy
		// evaluation. Level 7's chains with long-distance matches were
		// 3% larger than libzstd on R5 (short matches a GPU's code back,
		// beyond those chains' reach) at 1.04-1.24 times its CPU time;
		// these rows are smaller than libzstd there at 0.97-1.13 times
		// (three runs), and on the nine other corpora at 0.74-0.99,
		// though 3-4% larger than those chains where code repeats across
		// GPUs (A-E, R1).
		// Lazy2 cost R5 10% more CPU time for 0.1%; 2^20 rows made it
		// 1.6% larger; 4 candidates and targetLen 16 cost corpus A's
		// 3-GPU cut 3% for no clear gain in time (compress/NOTES.md).
		return params{minMatch: 5, hashLog: 21, depth: 6, lazy: 1, targetLen: 32, row: true, skipIn: 8}
	case level <= 12:
		// parseRow: 1<<(hashLog-4) rows of the 12 latest positions of a
		// hash, every position indexed but the inside of
		// matches longer than skipIn (its first 4 and last 8 are), lazy
		// evaluation as libzstd's lazy2 weighs it. What rocSPARSE 5.7.1's
		// bundle (R5: short matches a GPU's code back) needs to be smaller
		// than libzstd: parseFast's sparse chains were 1.5-2.5% larger
		// there. Half the rows reach back less far: 1% larger on R5.
		// Indexing the inside of matches up to 32 bytes costs up to 30%
		// more steps for 0.02% (compress/NOTES.md). Level 10 takes twice
		// the rows and no long-distance matches: 7-25% less CPU time on
		// the ten corpora measured, 0.5-2% larger where code repeats
		// across GPUs (still 0.83-0.997 of libzstd's size; R5 0.2%
		// smaller). At 11-12 twice the rows cost 2-6% more CPU time.
		if level == 10 {
			return params{minMatch: 5, hashLog: 22, depth: 8, lazy: 2, targetLen: 32, row: true, skipIn: 8}
		}
		return params{minMatch: 5, hashLog: 21, depth: 12, lazy: 2, targetLen: 64, row: true, ldm: true, ldmLog: 6, skipIn: 8}
	case level <= 15:
		// Level 12's rows, twice as many, searched for matches up to 128
		// bytes. Lazy2 over hash chains of every position, 16 deep, was
		// 0.6-0.8% larger than libzstd's 13-15 (btlazy2) on R5 at 1.2-1.4
		// times its CPU time, and longer chains cost more. Rows are
		// smaller than libzstd on all ten corpora measured (0.82-0.997)
		// in 0.31-0.84 of its CPU time, though 4-8% larger than those
		// chains where code repeats across GPUs (compress/NOTES.md).
		return params{minMatch: 5, hashLog: 22, depth: 12, lazy: 2, targetLen: 128, row: true, ldm: true, ldmLog: 6, skipIn: 8}
	}
	// Optimal parsing over a binary tree, with long-distance matches and
	// blocks cut where their statistics change (opt.go, split.go).
	o := params{minMatch: 3, hashLog: 22, chainLog: 24, ldm: true, opt: true, skipIn: 1, split: true}
	switch level {
	case 16:
		o.minMatch, o.hashLog, o.chainLog, o.depth, o.targetLen = 4, 21, 22, 8, 48
	case 17:
		o.chainLog, o.depth, o.targetLen = 23, 8, 64
	case 18:
		o.depth, o.targetLen = 20, 128
	case 19:
		o.depth, o.targetLen = 32, 256
	case 20:
		// Depth is not monotonic here: rocSPARSE's bundle was 0.3% larger
		// than libzstd at 48 and is 0.6% smaller at 40, in 6% less CPU
		// time; corpus A is 0.2% larger than at 48 (compress/NOTES.md).
		o.hashLog, o.chainLog, o.depth, o.targetLen = 23, 25, 40, 256
	case 21:
		o.hashLog, o.chainLog, o.depth, o.targetLen = 23, 25, 64, 512
	default:
		o.hashLog, o.chainLog, o.depth, o.targetLen = 23, 25, 128, 999
	}
	return o
}

// textParams are levels 5-15 for text (text bundles: preprocessed sources,
// assembly, IR): there parseFast's sparse chains fall behind libzstd's, and
// so do the rows at 8-15 on preprocessed C++ (4-7% larger than libzstd at
// 9-15 on three files; on the disassembly of three GPUs' code they are
// 10-25% smaller). Levels 5-7 take rows, with long-distance matches at 6-7:
// smaller than libzstd on both at 0.84-1.43 of its CPU time, where hash
// chains took 2.0-2.8 (compress/NOTES.md, "Text at levels 5-7"); levels
// 8-15 take hash chains of every position with long-distance matches.
func textParams(level int) params {
	switch {
	case level <= 5:
		return params{minMatch: 5, hashLog: 18, depth: 8, lazy: 1, targetLen: 32, row: true, skipIn: 8}
	case level <= 6:
		return params{minMatch: 5, hashLog: 18, depth: 12, lazy: 1, targetLen: 32, row: true, ldm: true, ldmLog: 5, skipIn: 8}
	case level <= 7:
		return params{minMatch: 5, hashLog: 18, depth: 12, lazy: 2, targetLen: 64, row: true, ldm: true, ldmLog: 5, skipIn: 8}
	case level <= 9:
		return params{minMatch: 5, hashLog: 18, chainLog: 20, depth: 16, lazy: 2, targetLen: 128, ldm: true, ldmLog: 6, skipIn: 32}
	case level <= 10:
		// 24 deep, long-distance matches sampled one in 32: libzstd's
		// level 10 was 0.8% smaller than 16 deep (T1 393,288 bytes
		// against 396,301; now 389,878).
		return params{minMatch: 5, hashLog: 20, chainLog: 22, depth: 24, lazy: 2, targetLen: 64, ldm: true, ldmLog: 5, skipIn: 32}
	case level <= 14:
		return params{minMatch: 4, hashLog: 20, chainLog: 22, depth: 64, lazy: 2, targetLen: 256, ldm: true}
	}
	// 128 deep at 15: 64 were 0.8% larger than libzstd's level 15 on T1
	// (378,452 bytes against 375,556; now 374,220).
	return params{minMatch: 4, hashLog: 20, chainLog: 22, depth: 128, lazy: 2, targetLen: 512, ldm: true}
}

// looksText reports whether src reads as text: at least 97% printable
// ASCII, tabs and line ends in eight samples of 8 KiB spread over it.
func looksText(src []byte) bool {
	const sample = 8 << 10
	total, ok := 0, 0
	for i := range 8 {
		at := (len(src) - sample) / 7 * i
		if len(src) <= sample {
			at = 0
		}
		for _, c := range src[at:min(at+sample, len(src))] {
			total++
			if c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' || c == '\r' {
				ok++
			}
		}
		if len(src) <= sample {
			break
		}
	}
	return total > 0 && ok*100 >= total*97
}
