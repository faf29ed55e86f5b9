package inspect

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/goffload/goffload/internal/format/bitcode"
	"github.com/goffload/goffload/internal/format/magic"
	"github.com/goffload/goffload/internal/format/offloadbin"
)

// walkOffloadBinaries lists the OffloadBinaries at r[0:size], back to back,
// each padded to 8 bytes; v2 and v3 binaries hold several images, v3 may be
// compressed. An image that is itself an OffloadBinary is walked in turn.
func (w *walker) walkOffloadBinaries(r io.ReaderAt, size int64, p place) {
	err := offloadbin.Walk(r, size, func(n int, _ int64, bins []*offloadbin.Binary) error {
		for _, b := range bins {
			w.image(r, b, n, p)
		}
		return w.stop // nil, or emit failed: nothing more is wanted
	})
	var we *offloadbin.WalkError
	if errors.As(err, &we) {
		w.fail(p, we.Offset, fmt.Sprintf("offload binary %d", we.Index), we.Err)
	} else if err != nil && err != w.stop {
		w.fail(p, 0, "offload binary", err)
	}
}

// image records one OffloadBinary image; one that is itself an
// OffloadBinary is recorded as the container of what it holds, which is
// walked in turn.
func (w *walker) image(r io.ReaderAt, b *offloadbin.Binary, n int, p place) {
	step := fmt.Sprintf("offload binary %d", n)
	if b.Version >= 2 {
		step = fmt.Sprintf("offload binary %d v%d", n, b.Version)
	}
	img := b.Image()
	outer, off, inflated := b.ImageAt()
	size := b.ImageSize()
	q := p.child(step)
	q.base = p.base
	var src io.ReaderAt = outer
	if inflated {
		// A compressed v3 binary: the image lies in inflated data that
		// offloadbin holds in memory.
		q.base = -1
		q.comp = &Compression{Format: "OffloadBinary", Version: int(b.Version), Offset: p.at(b.Offset), Size: b.Size}
		q.open = func() (io.Reader, error) { return io.NewSectionReader(outer, 0, off+size), nil }
	}
	o := &Object{Container: "offload image", Kind: b.OffloadKind.String(), Triple: b.Triple(),
		TargetID: b.Arch(), ImageKind: b.ImageKind.String(), Strings: b.Strings}
	o.ID = b.BundleID()
	inner := q.sub(off, fmt.Sprintf("image %d", b.Index))
	if q.comp != nil {
		// Inside decompressed data, what the image holds starts off bytes
		// further into it.
		c := *q.comp
		c.InnerOffset += off
		inner.comp = &c
	}
	if b.Version >= 2 {
		q.path[len(q.path)-1] += fmt.Sprintf(" image %d", b.Index)
	}
	if !b.Nested() {
		w.imageLeaf(o, src, off, size, q)
		return
	}
	// An image that is itself an OffloadBinary (clang nests them, and
	// llvm-offload-binary extracts the outer image whole): it is listed
	// first, as the container of what is listed inside it.
	w.imageLeaf(o, src, off, size, q)
	w.hold++ // nothing is handed on before o's Nested and the images' Outer are set
	first := len(w.pending)
	w.walk(img, size, inner, magic.OffloadBinary)
	for _, in := range w.pending[first:] {
		if in.Outer == nil {
			in.Outer = o
			o.Nested++
		}
	}
	w.hold--
}

// imageLeaf records an OffloadBinary image as an object at src[off:off+size].
func (w *walker) imageLeaf(o *Object, src io.ReaderAt, off, size int64, q place) {
	if q.comp != nil {
		// Inflated data is in memory already: header facts cost nothing.
		q2 := q
		q2.comp = nil
		w.leaf(o, src, off, size, q2)
		o.Offset = -1
		c := *q.comp
		c.InnerOffset += off
		o.Compressed = &c
		return
	}
	w.leaf(o, src, off, size, q)
}

// walkBitcode lists the OffloadBinaries embedded in host bitcode
// (llvm.embedded.objects), which are held in memory once found.
func (w *walker) walkBitcode(r io.ReaderAt, size int64, p place) {
	objs, err := bitcode.EmbeddedObjects(r, size)
	if err != nil {
		w.fail(p, 0, "bitcode", err)
		return
	}
	for i, obj := range objs {
		q := p.child(fmt.Sprintf("embedded object %d", i))
		q.base = -1
		q.comp = nil
		br := bytes.NewReader(obj)
		w.walkOffloadBinaries(br, int64(len(obj)), q)
	}
}
