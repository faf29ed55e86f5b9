package zenc

// havePrefetch tells whether prefetch does anything: where it does not,
// the addresses are not worked out either.
const havePrefetch = true

// prefetch asks the CPU to bring the cache line holding *p closer,
// without waiting for it: unlike a load, it never holds up the
// instructions after it. It never faults, whatever p points at.
//
//go:noescape
func prefetch(p *byte)

// prefetchRows prefetches the rows of eight row hashes (row index in the
// high bits, 64-byte rows from rows).
//
//go:noescape
func prefetchRows(rows *row, hs *[8]uint32)
