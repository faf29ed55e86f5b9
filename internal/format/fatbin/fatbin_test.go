package fatbin

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/goffload/goffload/fmterr"
	"github.com/goffload/goffload/internal/format/binfmt"
	"github.com/goffload/goffload/internal/format/compress"
)

// TestRuns: a binary bundle, padding, a CCOB, padding, a binary bundle,
// as a .hip_fatbin holds them; then bytes that are no bundle.
func TestRuns(t *testing.T) {
	bin := func(payload string) []byte {
		var b bytes.Buffer
		src := []binfmt.Source{{ID: "host-x86_64-unknown-linux-gnu-", R: strings.NewReader(""), Size: 0},
			{ID: "hip-amdgcn-amd-amdhsa--gfx90a", R: strings.NewReader(payload), Size: int64(len(payload))}}
		if err := binfmt.Write(&b, src, 4096); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	pad := func(b []byte) []byte { return append(b, make([]byte, (4096-len(b)%4096)%4096)...) }
	var ccob bytes.Buffer
	if _, err := compress.Compress(&ccob, bin("compressed code"), compress.Options{}); err != nil {
		t.Fatal(err)
	}
	first, second := bin("code one"), bin("code two")
	run := append(pad(append([]byte(nil), first...)), pad(append([]byte(nil), ccob.Bytes()...))...)
	run = append(run, second...)
	var items []Item
	err := Runs(bytes.NewReader(run), int64(len(run)), func(it Item) error {
		items = append(items, it)
		return nil
	})
	if err != nil || len(items) != 3 {
		t.Fatalf("Runs: %d items, %v", len(items), err)
	}
	want := []Item{{Index: 0, Offset: 0, End: int64(len(first))}, {Index: 1, Offset: int64(len(pad(first))), End: int64(len(pad(first)) + ccob.Len()), Compressed: true},
		{Index: 2, Offset: int64(len(run) - len(second)), End: int64(len(run))}}
	for i, it := range items {
		if it.Index != want[i].Index || it.Offset != want[i].Offset || it.End != want[i].End || it.Compressed != want[i].Compressed || it.Compressed != (it.Member != nil) || !it.Compressed && len(it.Rows) != 2 {
			t.Errorf("item %d: %+v, want %+v", i, it, want[i])
		}
	}
	// Damage after the first bundle: that one is given, then the error.
	bad := append(pad(append([]byte(nil), first...)), "garbage!"...)
	items = nil
	err = Runs(bytes.NewReader(bad), int64(len(bad)), func(it Item) error { items = append(items, it); return nil })
	var re *Error
	if len(items) != 1 || !errors.As(err, &re) || re.What != "bytes" || re.Offset != int64(len(pad(first))) || re.Index != 1 || !errors.Is(err, fmterr.ErrMalformed) {
		t.Errorf("damage: %d items, %v", len(items), err)
	}
}
