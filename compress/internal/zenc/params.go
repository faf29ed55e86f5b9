package zenc

// levelParams chooses the match finder's settings for a libzstd level and
// an input of n bytes. The choice was made by measurement against libzstd
// 1.5.4 with long-distance matching, as LLVM 22 calls it, on HIP fat
// binaries and on text bundles (compress/NOTES.md): at every level up to
// 12 our output is smaller than libzstd's. Small inputs take the settings
// of higher levels, which cost milliseconds there.
func levelParams(level, n int) params {
	switch {
	case level == 0:
		level = 3
	case level > 22:
		level = 22
	}
	if n < 1<<20 && level < 16 {
		level = max(level+10, 16)
	}
	switch {
	case level <= 4:
		// parseFast: greedy, one hash table of 5-byte and one of 8-byte
		// prefixes, the repeat offsets first.
		return params{minMatch: 5, hashLog: 17, longLog: 18, depth: 1, lazy: 1, targetLen: 128, fast: true, reps: 3}
	case level <= 6:
		// Hash chains, two bytes ahead; tables that stay in cache (the
		// long-distance matches reach further).
		return params{minMatch: 5, hashLog: 18, chainLog: 20, depth: 4, lazy: 2, targetLen: 128, ldm: true, ldmLog: 6, skipIn: 32}
	case level <= 12:
		return params{minMatch: 5, hashLog: 18, chainLog: 20, depth: 16, lazy: 2, targetLen: 128, ldm: true, ldmLog: 6, skipIn: 32}
	case level <= 18:
		return params{minMatch: 4, hashLog: 20, chainLog: 22, depth: 64, lazy: 2, targetLen: 256, ldm: true}
	}
	return params{minMatch: 4, hashLog: 21, chainLog: 23, depth: 256, lazy: 2, targetLen: 1024, ldm: true}
}
