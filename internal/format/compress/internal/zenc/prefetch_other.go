//go:build !amd64

package zenc

const havePrefetch = false

// prefetch does nothing where no instruction for it is written.
func prefetch(p *byte) {}

// prefetchRows does nothing where no instruction for it is written.
func prefetchRows(rows *row, hs *[8]uint32) {}
