package e2e

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/goffload/goffload/bundle"
	"github.com/goffload/goffload/inspect"
	"github.com/goffload/goffload/internal/format/offloadbin"
)

// TestReadersAgree feeds every file of every testdata folder (and the fuzz
// corpora's seeds are left out: they are damaged on purpose) through every
// reader that accepts it — package bundle, package offloadbin and package
// inspect — and checks that they give one answer: every entry bundle.Open
// lists and every image offloadbin.Extract finds is an object inspect
// lists, with the same ID (or triple and arch), size and bytes.
func TestReadersAgree(t *testing.T) {
	var files []string
	filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "fuzz" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() && strings.Contains(filepath.ToSlash(p), "/testdata/") {
			files = append(files, p)
		}
		return nil
	})
	if len(files) < 100 {
		t.Fatalf("only %d testdata files", len(files))
	}
	// Inputs one reader reads and inspect does not, on purpose or not yet:
	// each says why.
	known := map[string]string{
		"internal/format/objfmt/testdata/wasm.fat.o": "a WebAssembly host: the bundler's (through llvm-objcopy), not an object inspect walks",
	}
	checked, offsetsChecked, imagesChecked := 0, 0, 0
	for _, p := range files {
		if _, ok := known[strings.TrimPrefix(filepath.ToSlash(p), "../")]; ok {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil || len(data) == 0 {
			continue
		}
		l := inspect.Read(bytes.NewReader(data), int64(len(data)), p, nil)
		have := map[string][]string{} // "<ID> <size>" -> digests of inspect's objects
		offsets := map[int64]bool{}   // the file offsets inspect gives
		for _, o := range l.Objects {
			offsets[o.Offset] = true
			r, err := o.Open()
			if err != nil {
				continue
			}
			b, err := io.ReadAll(r)
			if err != nil {
				continue
			}
			k := fmt.Sprintf("%s %d", o.ID, o.Size)
			have[k] = append(have[k], digest(b))
		}
		// package bundle
		if b, err := bundle.Open(bytes.NewReader(data), int64(len(data)), nil); err == nil {
			entries, _ := b.Entries()
			for _, e := range entries {
				r, err := e.Open()
				if err != nil {
					continue
				}
				got, _ := io.ReadAll(r)
				if e.IsHost() && len(got) == 0 {
					continue // a fat object's host entry stands for the object
				}
				if off := e.Offset(); off >= 0 && len(got) > 0 && !e.IsHost() {
					offsetsChecked++
				}
				if off := e.Offset(); off >= 0 && len(got) > 0 && !offsets[off] && !e.IsHost() {
					t.Errorf("%s: bundle puts %s at file offset %d, inspect has no object there", p, e.ID, off)
				}
				k := fmt.Sprintf("%s %d", e.ID, len(got))
				if !contains(have[k], digest(got)) {
					t.Errorf("%s: bundle lists %s (%d bytes), inspect does not (inspect: %s)", p, e.ID, len(got), keys(have))
				}
				checked++
			}
			b.Close()
		}
		// package offloadbin
		found, err := offloadbin.Extract(bytes.NewReader(data), int64(len(data)), p)
		if err == nil {
			for _, f := range found {
				img, _ := io.ReadAll(f.Image())
				if f.ImageOffset >= 0 {
					imagesChecked++
				}
				if f.ImageOffset >= 0 && !offsets[f.ImageOffset] {
					t.Errorf("%s: offloadbin puts %s %s at file offset %d, inspect has no object there", p, f.Triple(), f.Arch(), f.ImageOffset)
				}
				ok := false
				for k, ds := range have {
					if strings.HasSuffix(strings.SplitN(k, " ", 2)[0], f.Arch()) && strings.Contains(k, f.Triple()) && contains(ds, digest(img)) {
						ok = true
					}
				}
				if !ok {
					t.Errorf("%s: offloadbin finds an image %s %s (%d bytes), inspect does not (inspect: %s)", p, f.Triple(), f.Arch(), len(img), keys(have))
				}
				checked++
			}
		}
		l.Close()
	}
	if checked < 100 || offsetsChecked < 50 || imagesChecked < 10 {
		t.Errorf("only %d entries and images compared, %d bundle and %d offloadbin file offsets", checked, offsetsChecked, imagesChecked)
	}
	t.Logf("%d files, %d entries and images compared, %d bundle and %d offloadbin file offsets", len(files), checked, offsetsChecked, imagesChecked)
}

func digest(b []byte) string {
	h := sha256.Sum256(b)
	return string(h[:])
}

func contains(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

func keys(m map[string][]string) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	if len(ks) > 6 {
		ks = append(ks[:6], "...")
	}
	return strings.Join(ks, ", ")
}
