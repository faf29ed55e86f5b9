package bundle

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"github.com/goffload/goffload/targetid"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goffload/goffload/internal/format/binfmt"
	"github.com/goffload/goffload/internal/format/compress"
	"github.com/goffload/goffload/internal/format/magic"
	"github.com/goffload/goffload/internal/format/objfmt"
	"github.com/goffload/goffload/internal/format/offloadbin"
	"github.com/goffload/goffload/internal/format/textfmt"
	"github.com/goffload/goffload/internal/test/llvmref"
	"github.com/klauspost/compress/zstd"
)

const (
	gfx906 = "hip-amdgcn-amd-amdhsa--gfx906"
	gfx90a = "hip-amdgcn-amd-amdhsa--gfx90a:xnack+"
	gfx942 = "hip-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"
	host   = "host-x86_64-pc-linux-gnu-"
)

// listCases are real clang 22 outputs with their -type and what LLVM 22's
// clang-offload-bundler -list prints for them.
var listCases = []struct {
	file, typ string
	want      []string
}{
	{"../../../testdata/inspect/rdc.o", "o", []string{gfx906, gfx90a, gfx942, host}},
	{"../../../testdata/inspect/kernel.bc", "bc", []string{gfx906, gfx90a, gfx942, host}},
	{"../../../testdata/inspect/kernel.s", "s", []string{gfx906, gfx90a, gfx942, host}},
	{"../../../testdata/inspect/kernel.ll", "ll", []string{gfx906, gfx90a, gfx942, host}},
	{"../../../testdata/inspect/gfx90a-ccob.co", "o", []string{"hipv4-amdgcn-amd-amdhsa--gfx90a", "host-x86_64-unknown-linux-gnu-"}},
	{"../compress/testdata/v3-default.cbc", "bc", []string{"hipv4-amdgcn-amd-amdhsa--gfx90a", "hipv4-amdgcn-amd-amdhsa--gfx906", "host-x86_64-unknown-linux-gnu-"}},
	{"../binfmt/testdata/four.bc", "bc", nil},        // filled from four.list
	{"../../../testdata/inspect/librdc.a", "a", nil}, // an archive lists nothing
}

func ids(t *testing.T, b *Bundle) []string {
	t.Helper()
	entries, err := b.Entries()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.ID)
	}
	return out
}

func openFile(t *testing.T, name string, o *Options) *Bundle {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(bytes.NewReader(data), int64(len(data)), o)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// Entries lists what LLVM 22 lists, in its order, with the type given and
// detected.
func TestEntriesInLLVMOrder(t *testing.T) {
	for _, c := range listCases {
		want := c.want
		if strings.HasSuffix(c.file, "four.bc") {
			l, err := os.ReadFile("../binfmt/testdata/four.list")
			if err != nil {
				t.Fatal(err)
			}
			want = strings.Fields(string(l))
		}
		for _, typ := range []string{c.typ, ""} {
			if typ == "" && c.typ == "a" {
				continue // no type: an archive is no bundle
			}
			got := ids(t, openFile(t, c.file, &Options{Type: typ}))
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("%s -type=%q: %q, want %q", c.file, typ, got, want)
			}
		}
	}
}

// The same lists from LLVM 22's bundler itself, where it is installed.
func TestEntriesAgainstLLVM(t *testing.T) {
	tool := llvmref.Need(t, "clang-offload-bundler")
	for _, c := range listCases {
		res := llvmref.Run(t, "", nil, nil, tool, "-list", "-type="+c.typ, "-input="+c.file)
		got := ids(t, openFile(t, c.file, &Options{Type: c.typ}))
		if strings.Join(got, "\n") != strings.TrimSuffix(string(res.Stdout), "\n") {
			t.Errorf("%s: ours %q, LLVM's %q", c.file, got, res.Stdout)
		}
	}
}

// Each entry's bytes are the payload written.
func TestWriteThenRead(t *testing.T) {
	payloads := map[string]string{gfx906: "code for gfx906", gfx90a: "code\nfor gfx90a\n", host: "host"}
	var src []Source
	for _, id := range []string{host, gfx906, gfx90a} {
		src = append(src, Source{ID: id, R: strings.NewReader(payloads[id]), Size: int64(len(payloads[id]))})
	}
	for _, typ := range []string{"", "bc", "s", "ll", "hipi", "o"} {
		var buf bytes.Buffer
		if err := Write(&buf, src, &WriteOptions{Type: typ}); err != nil {
			t.Fatalf("-type=%q: %v", typ, err)
		}
		b := openFile(t, writeTemp(t, buf.Bytes()), &Options{Type: typ})
		entries, err := b.Entries()
		if err != nil || len(entries) != 3 {
			t.Fatalf("-type=%q: %d entries, %v", typ, len(entries), err)
		}
		for _, e := range entries {
			r, err := e.Open()
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(r)
			if string(got) != payloads[e.ID] || e.Size() != int64(len(got)) {
				t.Errorf("-type=%q %s: %q (size %d), want %q", typ, e.ID, got, e.Size(), payloads[e.ID])
			}
		}
	}
}

func writeTemp(t *testing.T, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "b")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Align 0 is 1; a binary bundle aligned to 16 puts payloads on multiples
// of 16.
func TestWriteAlign(t *testing.T) {
	src := []Source{{ID: gfx906, R: strings.NewReader("abc"), Size: 3}, {ID: host, R: strings.NewReader("d"), Size: 1}}
	var zero, one bytes.Buffer
	if err := Write(&zero, src, &WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := Write(&one, src, &WriteOptions{Type: "bc", Align: 1}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(zero.Bytes(), one.Bytes()) {
		t.Error("Align 0 differs from Align 1")
	}
	var a16 bytes.Buffer
	if err := Write(&a16, src, &WriteOptions{Align: 16}); err != nil {
		t.Fatal(err)
	}
	entries, err := binfmt.ReadEntries(bytes.NewReader(a16.Bytes()), int64(a16.Len()))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Offset%16 != 0 {
			t.Errorf("%s at offset %d", e.ID, e.Offset)
		}
	}
	if err := Write(io.Discard, src, &WriteOptions{Type: "x"}); !errors.Is(err, ErrUnknownType) {
		t.Errorf("-type=x: %v", err)
	}
}

// A fat object is written into the host's ELF object as the bundler (and
// llvm-objcopy) writes it: the same bytes as LLVM 22's fat object.
func TestWriteObjectAsLLVM(t *testing.T) {
	want, err := os.ReadFile("../objfmt/testdata/clang-O1.fat.o")
	if err != nil {
		t.Fatal(err)
	}
	fat := openFile(t, "../objfmt/testdata/clang-O1.fat.o", nil)
	entries, err := fat.Entries()
	if err != nil {
		t.Fatal(err)
	}
	hostObj, err := os.ReadFile("../objfmt/testdata/clang-O1.host.o")
	if err != nil {
		t.Fatal(err)
	}
	var src []Source
	for _, e := range entries {
		r, err := e.Open()
		if err != nil {
			t.Fatal(err)
		}
		if e.HostPlaceholder {
			src = append(src, Source{ID: e.ID, R: bytes.NewReader(hostObj), Size: int64(len(hostObj))})
			continue
		}
		src = append(src, Source{ID: e.ID, R: r, Size: r.Size()})
	}
	var got bytes.Buffer
	if err := Write(&got, src, &WriteOptions{Type: "o"}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("fat object differs from LLVM's (%d bytes, want %d)", got.Len(), len(want))
	}
	// Without a host, the first entry is the reference: an object there
	// is an error, no object a binary bundle.
	if err := Write(io.Discard, src[:0:0], &WriteOptions{Type: "o"}); err != nil {
		t.Errorf("no entries: %v", err)
	}
	noHost := []Source{{ID: gfx906, R: bytes.NewReader(hostObj), Size: int64(len(hostObj))}}
	if err := Write(io.Discard, noHost, &WriteOptions{Type: "o"}); !errors.Is(err, ErrNoHost) {
		t.Errorf("no host: %v", err)
	}
}

func TestSelect(t *testing.T) {
	b := openFile(t, "../../../testdata/inspect/kernel.bc", nil)
	for _, c := range []struct {
		target, want string
		err          error
	}{
		{"gfx90a", "", targetid.ErrAmbiguous}, // only xnack+ code: which mode?
		{"gfx90a:xnack+", gfx90a, nil},
		{"gfx90a:xnack-", "", targetid.ErrNoMatch},
		{"gfx906:xnack+", gfx906, nil},
		{"gfx906", gfx906, nil},
		{"gfx942:sramecc+", "", targetid.ErrAmbiguous},
		{"gfx942:sramecc+:xnack-", gfx942, nil},
		{"gfx1100", "", targetid.ErrNoMatch},
		{"hip-amdgcn-amd-amdhsa--gfx90a:xnack+", gfx90a, nil},
		{"hip-amdgcn-amd-amdhsa-unknown-gfx906:xnack-", gfx906, nil},
		{"openmp-amdgcn-amd-amdhsa--gfx906", "", targetid.ErrNoMatch},
		{"amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-", gfx942, nil},
	} {
		e, err := b.Select(targetid.MustParseTarget(c.target))
		switch {
		case c.want == "" && !errors.Is(err, c.err):
			t.Errorf("%s: %v, %v; want %v", c.target, e, err, c.err)
		case c.want != "" && (err != nil || e.ID != c.want):
			t.Errorf("%s: %v, %v; want %s", c.target, e, err, c.want)
		}
	}
	// The processor's own code beats its generic family's, whatever the
	// order.
	var buf bytes.Buffer
	Write(&buf, []Source{
		{ID: "hipv4-amdgcn-amd-amdhsa--gfx9-generic", R: strings.NewReader("g"), Size: 1},
		{ID: "hipv4-amdgcn-amd-amdhsa--gfx906", R: strings.NewReader("p"), Size: 1},
	}, &WriteOptions{})
	b, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if e, err := b.Select(targetid.MustParseTarget("gfx906")); err != nil || e.ID != "hipv4-amdgcn-amd-amdhsa--gfx906" {
		t.Errorf("gfx906: %v, %v", e, err)
	}
	if e, err := b.Select(targetid.MustParseTarget("gfx900")); err != nil || e.ID != "hipv4-amdgcn-amd-amdhsa--gfx9-generic" {
		t.Errorf("gfx900: %v, %v", e, err)
	}
}

// compressed returns the CCOB of a binary bundle of the given entries.
func compressed(t *testing.T, src []Source, opt compress.Options) []byte {
	t.Helper()
	var plain, out bytes.Buffer
	if err := Write(&plain, src, &WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := compress.Compress(&out, plain.Bytes(), opt); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func TestInflate(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<14) // 256 KiB
	src := []Source{{ID: gfx906, R: bytes.NewReader(big), Size: int64(len(big))}, {ID: host, R: strings.NewReader("h"), Size: 1}}
	ccob := compressed(t, src, compress.Options{})
	r := bytes.NewReader(ccob)

	t.Run("memory", func(t *testing.T) {
		b, err := Open(r, r.Size(), &Options{Hash: true})
		if err != nil {
			t.Fatal(err)
		}
		zlib := compressed(t, src, compress.Options{Zlib: true})
		if _, err := Open(bytes.NewReader(zlib), int64(len(zlib)), nil); err != nil {
			t.Fatalf("zlib: %v", err)
		}
		defer b.Close()
		c := b.Inflated.CCOBs[0]
		if !b.Inflated.LLVM22 || c.Sum != c.HashValue() {
			t.Errorf("LLVM22 %v, sum %x, stored %x", b.Inflated.LLVM22, c.Sum, c.HashValue())
		}
		e, err := b.Select(targetid.MustParseTarget("gfx906"))
		if err != nil {
			t.Fatal(err)
		}
		sr, _ := e.Open()
		got, _ := io.ReadAll(sr)
		if !bytes.Equal(got, big) {
			t.Error("payload differs")
		}
	})
	t.Run("scratch", func(t *testing.T) {
		var files []*os.File
		o := &Options{Scratch: func() (Scratch, error) {
			f, err := os.CreateTemp(t.TempDir(), "scratch")
			files = append(files, f)
			return f, err
		}}
		b, err := Open(r, r.Size(), o)
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(t, b); len(got) != 2 {
			t.Errorf("entries %q", got)
		}
		b.Close()
		for _, f := range files {
			if _, err := f.Write([]byte{0}); err == nil {
				t.Errorf("%s left open", f.Name())
			}
		}
	})
	t.Run("cap", func(t *testing.T) {
		_, err := Open(r, r.Size(), &Options{MaxInflated: 1 << 10})
		var tl *TooLargeError
		if !errors.As(err, &tl) || tl.Max != 1<<10 {
			t.Errorf("got %v", err)
		}
	})
	t.Run("head", func(t *testing.T) {
		// A head too short for the table: Open inflates again in full.
		for _, keep := range []int64{16, 1 << 10} {
			b, err := Open(r, r.Size(), &Options{KeepHead: keep})
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(t, b); len(got) != 2 {
				t.Errorf("KeepHead %d: entries %q", keep, got)
			}
		}
		inf, err := Inflate(r, r.Size(), &Options{KeepHead: 16})
		if err != nil {
			t.Fatal(err)
		}
		inf.Bundle(nil)
		if !inf.Short() {
			t.Error("a 16-byte head is not short")
		}
	})
	t.Run("sequence", func(t *testing.T) {
		// Two CCOBs, zero padded: LLVM 22 cannot read it, we read both.
		second := compressed(t, []Source{{ID: gfx90a, R: strings.NewReader("x"), Size: 1}}, compress.Options{Version: 2})
		two := append(append(append([]byte(nil), ccob...), make([]byte, 4096-len(ccob)%4096)...), second...)
		b, err := Open(bytes.NewReader(two), int64(len(two)), nil)
		if err != nil {
			t.Fatal(err)
		}
		if b.Inflated.LLVM22 || len(b.Inflated.Parts) != 2 {
			t.Errorf("LLVM22 %v, %d parts", b.Inflated.LLVM22, len(b.Inflated.Parts))
		}
		if got := strings.Join(ids(t, b), " "); got != gfx906+" "+host+" "+gfx90a {
			t.Errorf("entries %s", got)
		}
	})
	t.Run("damaged", func(t *testing.T) {
		bad := append([]byte(nil), ccob...)
		bad[40] ^= 0xff
		_, err := Open(bytes.NewReader(bad), int64(len(bad)), nil)
		var ie *InflateError
		if !errors.As(err, &ie) {
			t.Errorf("got %v", err)
		}
	})
}

// A text bundle's walk follows LLVM: listing skips each entry's END line,
// unbundling only those of the entries it extracts, so that a START line
// inside a payload skipped is an entry.
func TestTextWalk(t *testing.T) {
	var inner, outer bytes.Buffer
	textfmt.Write(&inner, "#", []textfmt.Source{{ID: "inner", R: strings.NewReader("x")}})
	textfmt.Write(&outer, "#", []textfmt.Source{{ID: "outer", R: &inner}, {ID: "last", R: strings.NewReader("y")}})
	b, err := Read(bytes.NewReader(outer.Bytes()), int64(outer.Len()), &Options{Type: "s"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ids(t, b), " "); got != "outer last" {
		t.Errorf("listed %s", got)
	}
	var walked []string
	w := b.Walk()
	for {
		e, err := w.Next()
		if err != nil {
			break
		}
		walked = append(walked, e.ID)
	}
	if got := strings.Join(walked, " "); got != "outer inner last" {
		t.Errorf("walked %s", got)
	}
}

// Damage: an entry whose bytes are outside the file lists, and fails to
// open; a text entry without END marker too.
func TestDamagedEntries(t *testing.T) {
	noEnd := []byte("\n# __CLANG_OFFLOAD_BUNDLE____START__ " + gfx906 + "\npayload")
	b, err := Read(bytes.NewReader(noEnd), int64(len(noEnd)), &Options{Type: "s"})
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := b.Entries()
	if len(entries) != 1 || entries[0].Size() != -1 {
		t.Fatalf("entries %v", entries)
	}
	if _, err := entries[0].Open(); !errors.Is(err, textfmt.ErrNoEnd) {
		t.Errorf("Open: %v", err)
	}
	// A fat object whose bundle section runs past the end of the file.
	obj, err := os.ReadFile("../../../testdata/inspect/rdc.o")
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.NewFile(bytes.NewReader(obj))
	if err != nil {
		t.Fatal(err)
	}
	shoff := binary.LittleEndian.Uint64(obj[0x28:])
	for i, s := range f.Sections {
		if s.Name == objfmt.BundlePrefix+gfx942 {
			binary.LittleEndian.PutUint64(obj[shoff+uint64(i)*64+32:], 1<<40) // sh_size
		}
	}
	b, err = Read(bytes.NewReader(obj), int64(len(obj)), nil)
	if err != nil {
		t.Fatal(err)
	}
	entries, _ = b.Entries()
	opened := 0
	for _, e := range entries {
		if _, err := e.Open(); e.ID == gfx942 && !errors.Is(err, objfmt.ErrTruncated) {
			t.Errorf("Open: %v", err)
		} else if err == nil {
			opened++
		}
	}
	if len(entries) != 4 || opened != 3 {
		t.Errorf("%d entries, %d opened", len(entries), opened)
	}
}

func TestNotBundle(t *testing.T) {
	for _, data := range [][]byte{[]byte("just text"), nil} {
		if _, err := Open(bytes.NewReader(data), int64(len(data)), nil); !errors.Is(err, ErrNotBundle) {
			t.Errorf("%q: %v", data, err)
		}
	}
	if _, err := Read(strings.NewReader("x"), 1, &Options{Type: "zz"}); !errors.Is(err, ErrUnknownType) {
		t.Errorf("unknown type: %v", err)
	}
	big := strings.Repeat("x", 100)
	_, err := Read(strings.NewReader(big), 100, &Options{Type: "s", MaxText: 10})
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Size != 100 {
		t.Errorf("text past the cap: %v", err)
	}
}

// A negative size is an error, not a panic.
func TestNegativeSize(t *testing.T) {
	r := strings.NewReader("x")
	for name, f := range map[string]func() error{
		"Open":    func() error { _, err := Open(r, -1, nil); return err },
		"Read":    func() error { _, err := Read(r, -1, nil); return err },
		"Inflate": func() error { _, err := Inflate(r, -1, nil); return err },
	} {
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("%s: panic %v", name, p)
				}
			}()
			if err := f(); err == nil {
				t.Errorf("%s: no error", name)
			}
		}()
	}
}

// eofAt is a ReaderAt that returns io.EOF with every read reaching the end
// of its data, as io.ReaderAt allows.
type eofAt struct{ b []byte }

func (r eofAt) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(r.b)) {
		return 0, io.EOF
	}
	n := copy(p, r.b[off:])
	if off+int64(n) == int64(len(r.b)) {
		return n, io.EOF
	}
	return n, nil
}

// A short input is io.ErrUnexpectedEOF; a magic read that reaches the end
// with io.EOF still counts.
func TestShortReads(t *testing.T) {
	_, err := Read(eofAt{[]byte("abc")}, 10, &Options{Type: "s"})
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("short text bundle: %v", err)
	}
	ccob := compressed(t, []Source{{ID: gfx906, R: strings.NewReader("x"), Size: 1}}, compress.Options{})
	if !isCompressed(eofAt{ccob[:compress.MinLen]}, compress.MinLen) {
		t.Error("a CCOB header read with io.EOF is not compressed")
	}
	if !isOffloadBinary(eofAt{[]byte(magic.OffloadBinaryMagic)}, int64(len(magic.OffloadBinaryMagic))) {
		t.Error("an OffloadBinary magic read with io.EOF is no OffloadBinary")
	}
}

// countScratch counts the bytes written to the storage it hands out.
type countScratch struct {
	memory
	n *int64
}

func (s *countScratch) Write(p []byte) (int, error) {
	*s.n += int64(len(p))
	return s.memory.Write(p)
}

// A CCOB past the cap is inflated once, up to the cap, and is a
// TooLargeError (one that only the LLVM reading inflates: zlib).
func TestInflateCapOnce(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<14)
	ccob := compressed(t, []Source{{ID: gfx906, R: bytes.NewReader(big), Size: int64(len(big))}}, compress.Options{Zlib: true})
	var written int64
	const max = 64 << 10
	o := &Options{MaxInflated: max, Scratch: func() (Scratch, error) { return &countScratch{n: &written}, nil }}
	_, err := Inflate(bytes.NewReader(ccob), int64(len(ccob)), o)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("got %v", err)
	}
	if written > max {
		t.Errorf("%d bytes inflated for a cap of %d", written, max)
	}
}

// v3Compressed returns a compressed version-3 OffloadBinary of one image.
func v3Compressed(t *testing.T, image []byte) []byte {
	t.Helper()
	le := binary.LittleEndian
	const hsize, esize, ssize = 40, 40, 24
	tab := []byte("triple\x00amdgcn-amd-amdhsa\x00arch\x00gfx906\x00")
	tabOff := hsize + esize + 2*ssize
	raw := make([]byte, tabOff, tabOff+len(tab)+len(image)+8)
	copy(raw, offloadbin.Magic)
	le.PutUint32(raw[4:], offloadbin.Version3)
	le.PutUint64(raw[16:], hsize)
	le.PutUint64(raw[24:], 1)
	e := raw[hsize:]
	le.PutUint16(e[0:], uint16(offloadbin.ImageBitcode))
	le.PutUint16(e[2:], uint16(offloadbin.OffloadHIP))
	le.PutUint64(e[8:], hsize+esize)
	le.PutUint64(e[16:], 2)
	s := raw[hsize+esize:]
	for i, kv := range [][3]int{{0, 7, 17}, {25, 30, 6}} {
		le.PutUint64(s[i*ssize:], uint64(tabOff+kv[0]))
		le.PutUint64(s[i*ssize+8:], uint64(tabOff+kv[1]))
		le.PutUint64(s[i*ssize+16:], uint64(kv[2]))
	}
	raw = append(raw, tab...)
	raw = append(raw, make([]byte, (8-len(raw)%8)%8)...)
	le.PutUint64(e[24:], uint64(len(raw)))
	le.PutUint64(e[32:], uint64(len(image)))
	raw = append(raw, image...)
	raw = append(raw, make([]byte, (8-len(raw)%8)%8)...)
	le.PutUint64(raw[8:], uint64(len(raw)))
	zw, _ := zstd.NewWriter(nil)
	out := append(bytes.Clone(raw[:hsize]), zw.EncodeAll(raw[hsize:], nil)...)
	le.PutUint64(out[8:], uint64(len(out)))
	le.PutUint64(out[32:], uint64(len(raw)))
	return append(out, make([]byte, (8-len(out)%8)%8)...)
}

// All that one call inflates is capped by MaxTotal: several CCOBs, several
// compressed OffloadBinaries; each of these by MaxInflated.
func TestMaxTotal(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<14) // 256 KiB
	one := compressed(t, []Source{{ID: gfx906, R: bytes.NewReader(big), Size: int64(len(big))}}, compress.Options{})
	var ccobs []byte
	for range 4 {
		ccobs = append(ccobs, one...)
		ccobs = append(ccobs, make([]byte, 4096-len(ccobs)%4096)...)
	}
	bin := v3Compressed(t, big)
	bins := append(append([]byte(nil), bin...), bin...)
	for _, c := range []struct {
		name  string
		data  []byte
		total int64
	}{{"CCOBs", ccobs, 600 << 10}, {"OffloadBinaries", bins, 400 << 10}} {
		r := bytes.NewReader(c.data)
		b, err := Open(r, r.Size(), nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := ids(t, b); len(got) < 2 {
			t.Errorf("%s: entries %q", c.name, got)
		}
		b.Close()
		_, err = Open(r, r.Size(), &Options{MaxTotal: c.total})
		var tl *TooLargeError
		if !errors.As(err, &tl) || tl.Max != c.total {
			t.Errorf("%s past MaxTotal: %v", c.name, err)
		}
		if c.name == "OffloadBinaries" {
			// Two of 256 KiB fit 600 KiB: a third does not.
			const total = 600 << 10
			if _, err := Open(r, r.Size(), &Options{MaxTotal: total}); err != nil {
				t.Errorf("two OffloadBinaries within MaxTotal: %v", err)
			}
			three := append(append([]byte(nil), bins...), bin...)
			if _, err := Open(bytes.NewReader(three), int64(len(three)), &Options{MaxTotal: total}); !errors.As(err, &tl) || tl.Max != total {
				t.Errorf("three OffloadBinaries past MaxTotal: %v", err)
			}
			if _, err := Open(r, r.Size(), &Options{MaxInflated: 100 << 10}); !errors.As(err, &tl) || tl.Max != 100<<10 {
				t.Errorf("an OffloadBinary past MaxInflated: %v", err)
			}
		}
	}
}

// One *os.File in two Sources gives both its bytes, in either format, and
// into a file as into memory.
func TestWriteSharedFile(t *testing.T) {
	f, err := os.Open(writeTemp(t, []byte("shared payload")))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	src := []Source{{ID: gfx906, R: f, Size: 14}, {ID: gfx90a, R: f, Size: 14}, {ID: host, R: f, Size: 6}}
	for _, typ := range []string{"", "s"} {
		out, err := os.Create(filepath.Join(t.TempDir(), "out"))
		if err != nil {
			t.Fatal(err)
		}
		defer out.Close()
		var buf bytes.Buffer
		for _, w := range []io.Writer{&buf, out} {
			if err := Write(w, src, &WriteOptions{Type: typ}); err != nil {
				t.Fatalf("-type=%q: %v", typ, err)
			}
		}
		data, _ := os.ReadFile(out.Name())
		if !bytes.Equal(data, buf.Bytes()) {
			t.Errorf("-type=%q: to a file %q, to memory %q", typ, data, buf.Bytes())
		}
		b, err := Read(bytes.NewReader(data), int64(len(data)), &Options{Type: typ})
		if err != nil {
			t.Fatal(err)
		}
		entries, _ := b.Entries()
		for _, e := range entries {
			r, err := e.Open()
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(r)
			if want := "shared payload"[:len(got)]; string(got) != want || len(got) < 6 {
				t.Errorf("-type=%q %s: %q", typ, e.ID, got)
			}
		}
	}
}

// A Source holding fewer bytes than its Size fails a text bundle as it
// fails a binary one, from a file as from memory.
func TestWriteShortSource(t *testing.T) {
	f, err := os.Open(writeTemp(t, []byte("short")))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, r := range []io.ReaderAt{strings.NewReader("short"), f} {
		for _, typ := range []string{"", "s"} {
			err := Write(io.Discard, []Source{{ID: gfx906, R: r, Size: 10}}, &WriteOptions{Type: typ})
			if err == nil || !strings.Contains(err.Error(), "payload is 5 bytes, expected 10") {
				t.Errorf("%T -type=%q: %v", r, typ, err)
			}
		}
	}
}

// Of entries fitting a target that leaves a feature out, the one leaving
// it out too wins (it runs in either mode), whatever the order.
func TestSelectUnspecifiedFeature(t *testing.T) {
	const any, plus = "hipv4-amdgcn-amd-amdhsa--gfx90a", "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+"
	for _, order := range [][]string{{plus, any}, {any, plus}} {
		var buf bytes.Buffer
		var src []Source
		for _, id := range order {
			src = append(src, Source{ID: id, R: strings.NewReader(id), Size: int64(len(id))})
		}
		if err := Write(&buf, src, &WriteOptions{Type: "s"}); err != nil {
			t.Fatal(err)
		}
		b, err := Read(bytes.NewReader(buf.Bytes()), int64(buf.Len()), &Options{Type: "s"})
		if err != nil {
			t.Fatal(err)
		}
		for target, want := range map[string]string{"gfx90a": any, "gfx90a:xnack+": plus, "gfx90a:xnack-": any} {
			if e, err := b.Select(targetid.MustParseTarget(target)); err != nil || e.ID != want {
				t.Errorf("order %q, %s: %v, %v; want %s", order, target, e, err, want)
			}
		}
	}
}

// Zero values fail with an error, never a panic.
func TestZeroEntry(t *testing.T) {
	if _, err := (&Entry{}).Open(); err == nil {
		t.Error("a zero Entry opened")
	}
}

// Write refuses IDs no reader would take for a bundle entry's.
func TestWriteBadIDs(t *testing.T) {
	for _, ids := range [][]string{{""}, {"x"}, {gfx906, "a-b"}} {
		var src []Source
		for _, id := range ids {
			src = append(src, Source{ID: id, R: strings.NewReader("a"), Size: 1})
		}
		if err := Write(io.Discard, src, &WriteOptions{}); !errors.Is(err, ErrBadID) {
			t.Errorf("%q: %v", ids, err)
		}
	}
}

// Open of a linked library or a non-RDC object (device code in
// .hip_fatbin) says so instead of returning an empty bundle.
func TestOpenObjectWithoutBundles(t *testing.T) {
	for _, f := range []string{"libmulti.so", "hip-nonrdc.o", "newdriver.o"} {
		data, err := os.ReadFile(filepath.Join("../../../testdata/inspect", f))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Open(bytes.NewReader(data), int64(len(data)), nil); !errors.Is(err, ErrNotBundle) || !strings.Contains(err.Error(), "package inspect") {
			t.Errorf("%s: %v", f, err)
		}
	}
	data, _ := os.ReadFile("../../../testdata/inspect/rdc.o")
	if b, err := Open(bytes.NewReader(data), int64(len(data)), nil); err != nil {
		t.Errorf("rdc.o (a fat object): %v", err)
	} else {
		b.Close()
	}
}
