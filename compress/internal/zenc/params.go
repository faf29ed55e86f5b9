package zenc

// levelParams chooses the match finder's settings for a libzstd level and
// an input of n bytes. The choice was made by measurement against libzstd
// 1.5.4 with long-distance matching, as LLVM 22 calls it, on HIP fat
// binaries and text bundles (compress/NOTES.md): at every level up to 12
// our output is at least as small as libzstd's, and on large inputs no
// slower. Small inputs take the stronger settings of higher levels, which
// cost milliseconds there.
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
	case level < 0:
		return params{minMatch: 5, hashLog: 17, depth: 1, targetLen: 128, ldm: true, ldmLog: 6}
	case level <= 5:
		return params{minMatch: 5, hashLog: 17, depth: 1, lazy: 1, targetLen: 128, ldm: true, ldmLog: 6}
	case level <= 9:
		return params{minMatch: 5, hashLog: 20, chainLog: 22, depth: 4, lazy: 2, targetLen: 128, ldm: true, skipIn: 32}
	case level <= 15:
		return params{minMatch: 5, hashLog: 20, chainLog: 22, depth: 16, lazy: 2, targetLen: 128, ldm: true, skipIn: 32}
	case level <= 18:
		return params{minMatch: 4, hashLog: 20, chainLog: 22, depth: 64, lazy: 2, targetLen: 256, ldm: true}
	}
	return params{minMatch: 4, hashLog: 21, chainLog: 23, depth: 256, lazy: 2, targetLen: 1024, ldm: true}
}
