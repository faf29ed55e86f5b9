package inspect

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/goffload/goffload/internal/format/bundle"
	"github.com/goffload/goffload/internal/format/offloadbin"
)

// highWater is a ReaderAt that remembers how far into the data it has
// been read.
type highWater struct {
	r   io.ReaderAt
	max atomic.Int64
}

func (h *highWater) ReadAt(p []byte, off int64) (int, error) {
	n, err := h.r.ReadAt(p, off)
	for end := off + int64(n); ; {
		m := h.max.Load()
		if end <= m || h.max.CompareAndSwap(m, end) {
			break
		}
	}
	return n, err
}

// manyBundles is bundles back to back, 4 KiB apart, each of a host entry
// and eight code objects: every tenth bundle's are copies of a real gfx90a
// code object, the others' 64 bytes of its start. The shape of a big
// library's .hip_fatbin, smaller.
func manyBundles(t testing.TB, bundles int) []byte {
	real, err := os.ReadFile(filepath.Join(realDir, "gfx90a.co"))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for i := range bundles {
		co := real[:64]
		if i%10 == 0 {
			co = real
		}
		src := []bundle.Source{{ID: "host-x86_64-unknown-linux-gnu-", R: bytes.NewReader(nil)}}
		for _, g := range []string{"gfx906", "gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1101", "gfx1200"} {
			src = append(src, bundle.Source{ID: "hipv4-amdgcn-amd-amdhsa--" + g, R: bytes.NewReader(co), Size: int64(len(co))})
		}
		out.Write(make([]byte, (4096-out.Len()%4096)%4096))
		if err := bundle.Write(&out, src, &bundle.WriteOptions{Align: 4096}); err != nil {
			t.Fatal(i, err)
		}
	}
	return out.Bytes()
}

// describe is what a listing says of one object, for comparing walks.
func describe(o *Object) string {
	outer := -1
	if o.Outer != nil {
		outer = o.Outer.Index
	}
	return fmt.Sprintf("%d %s %q %d+%d nested %d outer %d code %+v", o.Index, o.ID, o.Path, o.Offset, o.Size, o.Nested, outer, o.Code)
}

// TestWalkStreams: Walk hands on what Read lists, in the same order with
// the same facts, and hands on the first objects long before it has read
// the whole file (memory does not grow with the objects). An error from
// the callback ends the walk.
func TestWalkStreams(t *testing.T) {
	data := manyBundles(t, 1000) // 9,000 objects
	r := bytes.NewReader(data)
	l := Read(r, int64(len(data)), "many", nil)
	if len(l.Errors) > 0 || len(l.Objects) != 1000*9 {
		t.Fatalf("%d objects, errors %v", len(l.Objects), l.Errors)
	}
	hw := &highWater{r: r}
	var first int64 = -1
	i := 0
	wl, err := Walk(hw, int64(len(data)), "many", nil, func(wl *Listing, o *Object) error {
		if first < 0 {
			first = hw.max.Load()
		}
		if wl.Kind != "offload bundle" {
			t.Fatalf("listing kind %q", wl.Kind)
		}
		if got, want := describe(o), describe(l.Objects[i]); got != want {
			t.Fatalf("object %d: Walk %s, Read %s", i, got, want)
		}
		i++
		return nil
	})
	if err != nil || i != len(l.Objects) || len(wl.Objects) != 0 || len(wl.Errors) != 0 {
		t.Fatalf("Walk: %v, %d objects handed on, %d kept, errors %v", err, i, len(wl.Objects), wl.Errors)
	}
	if first <= 0 || first > int64(len(data))/3 { // two batches of 9,000 objects: 23%
		t.Errorf("first object handed on after reading %d of %d bytes", first, len(data))
	}
	stop := errors.New("enough")
	n := 0
	hw = &highWater{r: r}
	sl, err := Walk(hw, int64(len(data)), "many", nil, func(*Listing, *Object) error {
		n++
		if n == 5 {
			return stop
		}
		return nil
	})
	if err != stop || n != 5 || len(sl.Errors) != 0 {
		t.Errorf("callback error: Walk returned %v after %d objects, errors %v", err, n, sl.Errors)
	}
	// The walk ends there: the batch being read is finished, nothing after.
	if got := hw.max.Load(); got > first+first/2 {
		t.Errorf("after the callback's error the walk read on to %d of %d bytes (the first object came at %d)", got, len(data), first)
	}
}

// TestWalkNestedAcrossBatches: an OffloadBinary whose nested binary holds
// more images than a batch: the outer image is handed on with the count of
// the images inside it, and each of them with it as Outer, by Walk as by
// Read.
func TestWalkNestedAcrossBatches(t *testing.T) {
	img := func(arch string, data []byte) offloadbin.Image {
		return offloadbin.Image{ImageKind: offloadbin.ImageKindFromExtension("o"), OffloadKind: offloadbin.ParseOffloadKind("hip"),
			Strings: []offloadbin.StringEntry{{Key: "triple", Value: "amdgcn-amd-amdhsa"}, {Key: "arch", Value: arch}},
			Data:    bytes.NewReader(data), Size: int64(len(data))}
	}
	const inside = headerBatch + 100
	var inner bytes.Buffer
	for i := range inside {
		if err := offloadbin.Write(&inner, img("gfx942", []byte(fmt.Sprint("image ", i)))); err != nil {
			t.Fatal(err)
		}
	}
	var imgs []offloadbin.Image
	for i := range headerBatch - 1 { // the outer image comes last in the first batch
		imgs = append(imgs, img("gfx906", []byte(fmt.Sprint("before ", i))))
	}
	imgs = append(imgs, offloadbin.Image{ImageKind: offloadbin.ImageKindFromExtension("o"), OffloadKind: offloadbin.ParseOffloadKind("hip"),
		Data: bytes.NewReader(inner.Bytes()), Size: int64(inner.Len())}, img("gfx90a", []byte("after")))
	var buf bytes.Buffer
	if err := offloadbin.Write(&buf, imgs...); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	l := Read(bytes.NewReader(b), int64(len(b)), "x.out", nil)
	if len(l.Errors) > 0 || len(l.Objects) != headerBatch+inside+1 {
		t.Fatalf("%d objects, errors %v", len(l.Objects), l.Errors)
	}
	outer := l.Objects[headerBatch-1]
	if outer.Nested != inside || l.Objects[headerBatch].Outer != outer || l.Objects[headerBatch+inside-1].Outer != outer || l.Objects[len(l.Objects)-1].Outer != nil {
		t.Fatalf("outer image %s", describe(outer))
	}
	i := 0
	_, err := Walk(bytes.NewReader(b), int64(len(b)), "x.out", nil, func(_ *Listing, o *Object) error {
		if got, want := describe(o), describe(l.Objects[i]); got != want {
			t.Fatalf("object %d: Walk %s, Read %s", i, got, want)
		}
		i++
		return nil
	})
	if err != nil || i != len(l.Objects) {
		t.Fatalf("Walk: %v after %d objects", err, i)
	}
}
