package inspect

import (
	"bytes"
	"encoding/binary"
	"errors"
	"github.com/goffload/goffload/targetid"
	"io"
	"strings"
	"testing"

	"github.com/goffload/goffload/internal/format/binfmt"
	"github.com/goffload/goffload/internal/format/compress"
	"github.com/goffload/goffload/internal/format/offloadbin"
)

// fakeCode is a minimal AMDGPU code object header for processor mach,
// code object v5, with the given feature bits; no sections.
func fakeCode(mach uint32, feats uint32, pad int) []byte {
	b := make([]byte, 64+pad)
	copy(b, "\x7fELF")
	b[4], b[5], b[6] = 2, 1, 1 // 64-bit, little-endian, version 1
	b[7], b[8] = osabiHSA, 3   // HSA, ABI version 3 = code object v5
	binary.LittleEndian.PutUint16(b[16:], 3)
	binary.LittleEndian.PutUint16(b[18:], emAMDGPU)
	binary.LittleEndian.PutUint32(b[20:], 1)
	binary.LittleEndian.PutUint32(b[48:], mach|feats)
	binary.LittleEndian.PutUint16(b[52:], 64)
	return b
}

func makeBundle(t testing.TB, align uint64, entries ...any) []byte {
	t.Helper()
	var src []binfmt.Source
	for i := 0; i < len(entries); i += 2 {
		d := entries[i+1].([]byte)
		src = append(src, binfmt.Source{ID: entries[i].(string), R: bytes.NewReader(d), Size: int64(len(d))})
	}
	var buf bytes.Buffer
	if err := binfmt.Write(&buf, src, align); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func ccob(t testing.TB, data []byte, opt compress.Options) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := compress.Compress(&buf, data, opt); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func pad4k(b []byte) []byte {
	n := (len(b) + 4095) &^ 4095
	return append(b, make([]byte, n-len(b))...)
}

var (
	gfx906  = fakeCode(0x2f, 0x500, 100) // xnack any, sramecc any
	gfx90ax = fakeCode(0x3f, 0x700, 200) // xnack on, sramecc any
	gfx942  = fakeCode(0x4c, 0xe00, 300) // xnack off, sramecc on
)

func threeTargets(t testing.TB) []byte {
	return makeBundle(t, 4096,
		"host-x86_64-unknown-linux-gnu-", []byte{},
		"hipv4-amdgcn-amd-amdhsa--gfx906", gfx906,
		"hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+", gfx90ax,
		"hipv4-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-", gfx942)
}

func ids(l *Listing) []string {
	var s []string
	for _, o := range l.Objects {
		s = append(s, o.ID)
	}
	return s
}

func readAll(t testing.TB, o *Object) []byte {
	t.Helper()
	r, err := o.Open()
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("%s: %v", o.Where(), err)
	}
	return b
}

// A run of bundles, plain and compressed (every CCOB version and method),
// as .hip_fatbin holds them: every object found, with the right bytes,
// offsets and header facts.
func TestBundleRun(t *testing.T) {
	b := threeTargets(t)
	var run []byte
	run = append(run, pad4k(b)...)
	run = append(run, pad4k(ccob(t, b, compress.Options{Version: 3}))...)
	run = append(run, pad4k(ccob(t, b, compress.Options{Version: 2, Zlib: true}))...)
	run = append(run, pad4k(ccob(t, b, compress.Options{Version: 1}))...)
	run = append(run, ccob(t, b, compress.Options{Version: 1, Zlib: true})...)
	l := Read(bytes.NewReader(run), int64(len(run)), "run.bin", nil)
	if len(l.Errors) > 0 {
		t.Fatal(l.Errors)
	}
	if len(l.Objects) != 20 {
		t.Fatalf("%d objects, want 20: %q", len(l.Objects), ids(l))
	}
	want := map[string][]byte{"hipv4-amdgcn-amd-amdhsa--gfx906": gfx906, "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+": gfx90ax,
		"hipv4-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-": gfx942, "host-x86_64-unknown-linux-gnu-": {}}
	for _, o := range l.Objects {
		if got := readAll(t, o); !bytes.Equal(got, want[o.ID]) {
			t.Errorf("%s: %d bytes differ from the %d put in", o.Where(), len(got), len(want[o.ID]))
		}
		bundleNo := o.Index / 4
		if (o.Compressed == nil) != (bundleNo == 0) {
			t.Errorf("%s: compressed = %v", o.Where(), o.Compressed)
		}
		if o.Compressed == nil && !bytes.Equal(run[o.Offset:o.Offset+o.Size], want[o.ID]) {
			t.Errorf("%s: file offset %d does not hold the object", o.Where(), o.Offset)
		}
		if o.Compressed != nil && o.Offset != -1 {
			t.Errorf("%s: compressed object with file offset %d", o.Where(), o.Offset)
		}
	}
	o := l.Objects[2]
	if o.Code == nil || o.Code.Processor != "gfx90a" || o.Code.Xnack != "on" || o.Code.SRAMECC != "any" || o.Code.CodeObjectVersion != 5 {
		t.Errorf("gfx90a header facts: %+v", o.Code)
	}
	if o.TargetID != "gfx90a:xnack+" || o.Triple != "amdgcn-amd-amdhsa-" || o.Kind != "hipv4" {
		t.Errorf("ID pieces: %q %q %q", o.Kind, o.Triple, o.TargetID)
	}
	if c := l.Objects[6].Compressed; c.Version != 3 || c.Method != "zstd" || c.Offset != int64(len(pad4k(b))) || c.InnerOffset != 8192 {
		t.Errorf("CCOB facts: %+v", c)
	}
	if c := l.Objects[10].Compressed; c.Version != 2 || c.Method != "zlib" {
		t.Errorf("CCOB v2 zlib facts: %+v", c)
	}
}

// Target selection follows the target-ID rules: features left out of the
// request fit any setting; a processor's own code beats generic code.
func TestForTarget(t *testing.T) {
	b := makeBundle(t, 1,
		"hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-", gfx90ax,
		"hipv4-amdgcn-amd-amdhsa--gfx90a", gfx906,
		"hipv4-amdgcn-amd-amdhsa--gfx9-generic", gfx942,
		"hipv4-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-", gfx942)
	l := Read(bytes.NewReader(b), int64(len(b)), "b", nil)
	for _, c := range []struct {
		target string
		want   string // ID picked, "" for none
		err    error
	}{
		{"gfx90a:xnack+", "hipv4-amdgcn-amd-amdhsa--gfx90a", nil},
		{"gfx90a:xnack-", "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-", nil},
		{"gfx90a", "hipv4-amdgcn-amd-amdhsa--gfx90a", nil},
		{"gfx906", "hipv4-amdgcn-amd-amdhsa--gfx9-generic", nil},
		{"gfx942:sramecc+:xnack-", "hipv4-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-", nil},
		{"gfx942:sramecc+", "", targetid.ErrAmbiguous},
		{"gfx942:sramecc-", "", targetid.ErrNoMatch},
		{"gfx1100", "", targetid.ErrNoMatch},
	} {
		got, err := l.ForTarget(targetid.MustParseTarget(c.target))
		var nm *targetid.NoMatchError
		switch {
		case c.want == "" && (len(got) != 0 || !errors.Is(err, c.err)):
			t.Errorf("%s: picked %v, %v; want %v", c.target, ids(&Listing{Objects: got}), err, c.err)
		case errors.As(err, &nm) && len(nm.Reasons) != len(l.Devices()):
			t.Errorf("%s: %d reasons for %d device objects", c.target, len(nm.Reasons), len(l.Devices()))
		case c.want != "" && (err != nil || len(got) != 1 || got[0].ID != c.want):
			t.Errorf("%s: picked %v, %v; want %s", c.target, ids(&Listing{Objects: got}), err, c.want)
		}
	}
}

// Damaged input: each problem is reported with where and what, and the
// healthy parts around it are still listed.
func TestDamage(t *testing.T) {
	good := threeTargets(t)
	le := binary.LittleEndian
	for _, c := range []struct {
		name   string
		data   func() []byte
		nobj   int    // objects still listed
		errSub string // in the first error
	}{
		{"entry size past the end", func() []byte {
			b := bytes.Clone(good)
			// entry 1 (gfx906): offset at 32+30+24+... find it by ID
			i := bytes.Index(b, []byte("hipv4-amdgcn-amd-amdhsa--gfx906")) - 16
			le.PutUint64(b[i:], 1<<62)
			return b
		}, 3, "entry 1"},
		{"offset plus size wraps", func() []byte {
			b := bytes.Clone(good)
			i := bytes.Index(b, []byte("hipv4-amdgcn-amd-amdhsa--gfx906")) - 24
			le.PutUint64(b[i:], 4096)
			le.PutUint64(b[i+8:], ^uint64(0)-100)
			return b
		}, 3, "past the bundle"},
		{"lying entry count", func() []byte {
			b := bytes.Clone(good)
			le.PutUint64(b[24:], 1<<60)
			return b
		}, 0, "entry count"},
		{"huge ID length", func() []byte {
			b := bytes.Clone(good)
			i := bytes.Index(b, []byte("hipv4-amdgcn-amd-amdhsa--gfx906")) - 8
			le.PutUint64(b[i:], 0xffffffffffffffe2)
			return b
		}, 0, "ID length"}, // a table cut short lists no entry (issue 21)
		{"second bundle garbage after a good one", func() []byte {
			return append(pad4k(bytes.Clone(good)), []byte("garbage!garbage!")...)
		}, 4, "neither a bundle"},
		{"CCOB whose total size lies, after a good bundle", func() []byte {
			c := ccob(t, good, compress.Options{Version: 3})
			le.PutUint64(c[8:], 1<<40)
			return append(pad4k(bytes.Clone(good)), c...)
		}, 4, "total size"},
		{"CCOB whose bundle declares a huge entry", func() []byte {
			b := bytes.Clone(good)
			i := bytes.Index(b, []byte("hipv4-amdgcn-amd-amdhsa--gfx906")) - 16
			le.PutUint64(b[i:], 3<<30)
			return ccob(t, b, compress.Options{Version: 3})
		}, 3, "past the bundle"},
		{"CCOB payload cut short", func() []byte {
			c := ccob(t, good, compress.Options{Version: 2})
			return c[:len(c)-40]
		}, 0, "total size"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := c.data()
			l := Read(bytes.NewReader(b), int64(len(b)), "bad.bin", nil)
			if len(l.Errors) == 0 {
				t.Fatalf("no error; objects %q", ids(l))
			}
			if len(l.Objects) != c.nobj {
				t.Errorf("%d objects listed, want %d: %q", len(l.Objects), c.nobj, ids(l))
			}
			msg := l.Errors[0].Error()
			if !strings.Contains(msg, c.errSub) || !strings.HasPrefix(msg, "bad.bin") {
				t.Errorf("error %q does not name the file and %q", msg, c.errSub)
			}
		})
	}
}

// An object in a damaged CCOB payload fails when opened, with a clear
// error, and no byte past the damage is trusted.
func TestOpenDamagedCCOB(t *testing.T) {
	big := make([]byte, 1<<20)
	for i := range big {
		big[i] = byte(i * i >> 7)
	}
	b := makeBundle(t, 4096, "host-x86_64-unknown-linux-gnu-", []byte{}, "hipv4-amdgcn-amd-amdhsa--gfx906", big)
	c := ccob(t, b, compress.Options{Version: 3, Level: 1})
	c[len(c)-20] ^= 0xff // damage the last block
	l := Read(bytes.NewReader(c), int64(len(c)), "c.co", nil)
	if len(l.Objects) != 2 {
		t.Fatalf("objects %q, errors %v", ids(l), l.Errors)
	}
	last := l.Objects[len(l.Objects)-1]
	r, err := last.Open()
	if err == nil {
		_, err = io.Copy(io.Discard, r)
	}
	if err == nil {
		t.Fatal("damaged payload read without error")
	}
}

// OffloadBinaries: several back to back, nested, with metadata.
func TestOffloadBinaries(t *testing.T) {
	img := func(arch string, data []byte) offloadbin.Image {
		return offloadbin.Image{ImageKind: offloadbin.ImageKindFromExtension("o"), OffloadKind: offloadbin.ParseOffloadKind("hip"),
			Strings: []offloadbin.StringEntry{{Key: "triple", Value: "amdgcn-amd-amdhsa"}, {Key: "arch", Value: arch}},
			Data:    bytes.NewReader(data), Size: int64(len(data))}
	}
	var inner bytes.Buffer
	if err := offloadbin.Write(&inner, img("gfx942", gfx942)); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	nested := offloadbin.Image{ImageKind: offloadbin.ImageKindFromExtension("o"), OffloadKind: offloadbin.ParseOffloadKind("hip"),
		Data: bytes.NewReader(inner.Bytes()), Size: int64(inner.Len())}
	if err := offloadbin.Write(&buf, img("gfx906", gfx906), img("gfx90a:xnack+", gfx90ax), nested); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	l := Read(bytes.NewReader(b), int64(len(b)), "x.out", nil)
	if len(l.Errors) > 0 {
		t.Fatal(l.Errors)
	}
	// The nested binary's image (no triple, no arch) is listed too, as the
	// container of the image inside it (issue 21).
	want := []string{"hip-amdgcn-amd-amdhsa--gfx906", "hip-amdgcn-amd-amdhsa--gfx90a:xnack+", "hip-----", "hip-amdgcn-amd-amdhsa--gfx942"}
	if got := ids(l); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("IDs %q, want %q", got, want)
	}
	for i, data := range [][]byte{gfx906, gfx90ax, inner.Bytes(), gfx942} {
		o := l.Objects[i]
		if !bytes.Equal(readAll(t, o), data) || !bytes.Equal(b[o.Offset:o.Offset+o.Size], data) {
			t.Errorf("%s: bytes or offset wrong", o.Where())
		}
	}
	if o := l.Objects[2]; o.Nested != 1 || len(o.Path) != 1 || l.Objects[3].Outer != o {
		t.Errorf("outer image: nested %d, path %q", o.Nested, o.Path)
	}
	if p := l.Objects[3].Path; len(p) != 3 {
		t.Errorf("nested image path %q", p)
	}
	if n := len(l.Devices()); n != 3 {
		t.Errorf("%d devices, want 3", n)
	}
}

// Text bundles are read line by line; an entry without END is reported and
// the entries before it are kept.
func TestTextBundle(t *testing.T) {
	s := "\n; __CLANG_OFFLOAD_BUNDLE____START__ hip-amdgcn-amd-amdhsa--gfx906\ndevice code\n; __CLANG_OFFLOAD_BUNDLE____END__ hip-amdgcn-amd-amdhsa--gfx906\n" +
		"\n; __CLANG_OFFLOAD_BUNDLE____START__ host-x86_64-unknown-linux-gnu-\nhost code\n"
	l := Read(strings.NewReader(s), int64(len(s)), "k.ll", nil)
	if len(l.Objects) != 1 || string(readAll(t, l.Objects[0])) != "device code" {
		t.Fatalf("objects %q", ids(l))
	}
	if len(l.Errors) != 1 || !errors.Is(l.Errors[0], ErrTruncated) {
		t.Fatalf("errors %v", l.Errors)
	}
}

// Containers nested deeper than the limit stop with an error, not a stack
// overflow.
func TestDepthLimit(t *testing.T) {
	data := gfx906
	for i := 0; i < 40; i++ {
		var buf bytes.Buffer
		err := offloadbin.Write(&buf, offloadbin.Image{ImageKind: 1, OffloadKind: 1, Data: bytes.NewReader(data), Size: int64(len(data))})
		if err != nil {
			t.Fatal(err)
		}
		data = buf.Bytes()
	}
	l := Read(bytes.NewReader(data), int64(len(data)), "deep", nil)
	if len(l.Errors) != 1 || !errors.Is(l.Errors[0], ErrTooDeep) {
		t.Fatalf("errors %v", l.Errors)
	}
}

// A file with no device code lists nothing, without error.
func TestNothing(t *testing.T) {
	for _, s := range []string{"", "hello\n", "\x7fELF"} {
		l := Read(strings.NewReader(s), int64(len(s)), "n", nil)
		if len(l.Objects) != 0 || (s != "\x7fELF" && len(l.Errors) != 0) {
			t.Errorf("%q: %q %v", s, ids(l), l.Errors)
		}
	}
}

// Bundle IDs of every age split into kind, triple and target ID.
func TestSplitID(t *testing.T) {
	for _, c := range [][4]string{
		{"hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+", "hipv4", "amdgcn-amd-amdhsa-", "gfx90a:xnack+"},
		{"host-x86_64-unknown-linux-gnu-", "host", "x86_64-unknown-linux-gnu", ""},
		{"host-x86_64-unknown-linux", "host", "x86_64-unknown-linux", ""},
		{"hip-amdgcn-amd-amdhsa-gfx906", "hip", "amdgcn-amd-amdhsa", "gfx906"},
		{"openmp-nvptx64-nvidia-cuda-sm_70", "openmp", "nvptx64-nvidia-cuda", "sm_70"},
		{"openmp-nvptx64-nvidia-cuda", "openmp", "nvptx64-nvidia-cuda", ""},
		{"hip-amdgcn-amd-amdhsa-unknown-gfx1100", "hip", "amdgcn-amd-amdhsa-unknown", "gfx1100"},
		{"weird", "weird", "", ""},
	} {
		k, tr, tid := SplitID(c[0])
		if k != c[1] || tr != c[2] || tid != c[3] {
			t.Errorf("%s: %q %q %q", c[0], k, tr, tid)
		}
	}
}
