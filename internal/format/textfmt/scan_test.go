package textfmt

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/goffload/goffload/fmterr"
)

// readerSpans lists data's entries with Reader, the in-memory reader the
// bundler uses: the answer Scan must give.
func readerSpans(data []byte) (spans []Span, err error) {
	comment, ok := Detect(data)
	if !ok {
		return nil, nil
	}
	r := NewReader(data, comment)
	for {
		id, ok := r.Next()
		if !ok {
			return spans, nil
		}
		off := r.Offset()
		p, err := r.Payload()
		if err != nil {
			return spans, err
		}
		spans = append(spans, Span{ID: id, Offset: int64(off), Size: int64(len(p))})
	}
}

func scanSpans(t testing.TB, data []byte, oneByte bool) ([]Span, error) {
	var src = bytes.NewReader(data)
	var spans []Span
	var r interface{ Read([]byte) (int, error) } = src
	if oneByte {
		r = iotest.OneByteReader(src)
	}
	_, err := Scan(r, "", func(s Span) error {
		if s.Start < 0 || s.Offset < s.Start || s.Offset+s.Size > int64(len(data)) || data[s.Start] != '\n' {
			t.Fatalf("span out of place: %+v (len %d)", s, len(data))
		}
		s.Start, s.EndID = 0, ""
		spans = append(spans, s)
		return nil
	})
	return spans, err
}

// checkAgree holds Scan to Reader's answer on data.
func checkAgree(t testing.TB, name string, data []byte) {
	want, werr := readerSpans(data)
	for _, oneByte := range []bool{false, true} {
		got, gerr := scanSpans(t, data, oneByte)
		if errors.Is(gerr, fmterr.ErrLimit) {
			// Scan refuses an ID over MaxIDLen, which Reader, holding the
			// file, takes: the entries before it must agree.
			if len(got) > len(want) {
				t.Fatalf("%s: Scan %d entries before its ID limit, Reader %d", name, len(got), len(want))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("%s: entry %d: Scan %+v, Reader %+v", name, i, got[i], want[i])
				}
			}
			continue
		}
		if errors.Is(werr, ErrNoEnd) != errors.Is(gerr, ErrNoEnd) || (werr == nil) != (gerr == nil) {
			t.Fatalf("%s: Scan error %v, Reader %v", name, gerr, werr)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: Scan %d entries %+v, Reader %d %+v", name, len(got), got, len(want), want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%s: entry %d: Scan %+v, Reader %+v", name, i, got[i], want[i])
			}
		}
	}
}

func TestScanAgreesWithReader(t *testing.T) {
	files, _ := filepath.Glob("testdata/*")
	if len(files) == 0 {
		t.Fatal("no test files")
	}
	for _, p := range files {
		if fi, err := os.Stat(p); err != nil || fi.IsDir() {
			continue // the fuzz corpus: FuzzScan runs it
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		checkAgree(t, p, b)
	}
	for name, s := range map[string]string{
		"at offset 0":        "// __CLANG_OFFLOAD_BUNDLE____START__ a\nx\n// __CLANG_OFFLOAD_BUNDLE____END__ a\n",
		"no blank line":      "\n// __CLANG_OFFLOAD_BUNDLE____START__ a\nx\n// __CLANG_OFFLOAD_BUNDLE____END__ a\n// __CLANG_OFFLOAD_BUNDLE____START__ b\ny\n// __CLANG_OFFLOAD_BUNDLE____END__ b\n",
		"empty payload":      "\n; __CLANG_OFFLOAD_BUNDLE____START__ a\n\n; __CLANG_OFFLOAD_BUNDLE____END__ a\n",
		"END of another ID":  "\n# __CLANG_OFFLOAD_BUNDLE____START__ a\nx\n# __CLANG_OFFLOAD_BUNDLE____END__ b\n",
		"no END":             "\n# __CLANG_OFFLOAD_BUNDLE____START__ a\nx\n",
		"START without NL":   "\n# __CLANG_OFFLOAD_BUNDLE____START__ a",
		"END right after":    "\n# __CLANG_OFFLOAD_BUNDLE____START__ a\n# __CLANG_OFFLOAD_BUNDLE____END__ a\nz\n# __CLANG_OFFLOAD_BUNDLE____END__ a\n",
		"mixed comments":     "\n# __CLANG_OFFLOAD_BUNDLE____START__ a\nx\n// __CLANG_OFFLOAD_BUNDLE____END__ a\n# __CLANG_OFFLOAD_BUNDLE____END__ a\n",
		"long line":          "\n// __CLANG_OFFLOAD_BUNDLE____START__ a\n" + strings.Repeat("y", 200000) + "\n// __CLANG_OFFLOAD_BUNDLE____END__ a" + strings.Repeat("z", 100000) + "\n\n// __CLANG_OFFLOAD_BUNDLE____START__ b\nq\n// __CLANG_OFFLOAD_BUNDLE____END__ b\n",
		"START inside entry": "\n// __CLANG_OFFLOAD_BUNDLE____START__ a\n// __CLANG_OFFLOAD_BUNDLE____START__ b\nx\n// __CLANG_OFFLOAD_BUNDLE____END__ a\n",
	} {
		checkAgree(t, name, []byte(s))
	}
}

// FuzzScan holds the streaming reader to the in-memory one on any input.
func FuzzScan(f *testing.F) {
	files, _ := filepath.Glob("testdata/*")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkAgree(t, "input", data) })
}

// TestScanIDLimit: an ID over MaxIDLen is refused whether its START line
// fits the read buffer (5,000 bytes) or not (70,000).
func TestScanIDLimit(t *testing.T) {
	for _, n := range []int{MaxIDLen, 5000, 70000} {
		data := "\n// __CLANG_OFFLOAD_BUNDLE____START__ " + strings.Repeat("i", n) + "\nx\n// __CLANG_OFFLOAD_BUNDLE____END__ a\n"
		entries := 0
		_, err := Scan(strings.NewReader(data), "", func(Span) error { entries++; return nil })
		if over := n > MaxIDLen; over != (err != nil) || !over && entries != 1 {
			t.Errorf("ID of %d bytes: %d entries, %v", n, entries, err)
		}
	}
}
