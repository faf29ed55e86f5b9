package objfmt

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goffload/goffload/internal/test/difftest"
)

// goldenSections are the sections testdata/gen.sh adds to every host.
func goldenSections(t *testing.T) []Section {
	t.Helper()
	var secs []Section
	for _, p := range []struct{ id, file string }{
		{"host-x86_64-unknown-linux-gnu-", "payload-nul.bin"},
		{"hip-amdgcn-amd-amdhsa--gfx906", "payload-4.bin"},
		{"openmp-x86_64-unknown-linux-gnu-", "payload-300.bin"},
	} {
		b := readFile(t, filepath.Join("testdata", p.file))
		secs = append(secs, Section{Name: BundlePrefix + p.id, Data: bytes.NewReader(b), Size: int64(len(b))})
	}
	return secs
}

func readFile(t testing.TB, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func addSections(t testing.TB, host []byte, secs []Section) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := AddSections(&out, bytes.NewReader(host), int64(len(host)), secs); err != nil {
		t.Fatalf("AddSections: %v", err)
	}
	return out.Bytes()
}

func strip(t testing.TB, in []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := StripBundles(&out, bytes.NewReader(in), int64(len(in))); err != nil {
		t.Fatalf("StripBundles: %v", err)
	}
	return out.Bytes()
}

// sameBytes fails with the first differing offset.
func sameBytes(t testing.TB, what string, got, want []byte) {
	t.Helper()
	if i := difftest.FirstDifference(got, want); i >= 0 {
		t.Errorf("%s: %d bytes, want %d (llvm-objcopy 22); first difference at offset %#x", what, len(got), len(want), i)
	}
}

func TestGoldenAddAndStrip(t *testing.T) {
	hosts, _ := filepath.Glob("testdata/*.host.o")
	if len(hosts) == 0 {
		t.Fatal("no golden files")
	}
	secs := goldenSections(t)
	for _, hp := range hosts {
		name := strings.TrimSuffix(filepath.Base(hp), ".host.o")
		t.Run(name, func(t *testing.T) {
			host := readFile(t, hp)
			fat := readFile(t, "testdata/"+name+".fat.o")
			want := readFile(t, "testdata/"+name+".strip.o")
			sameBytes(t, "AddSections", addSections(t, host, secs), fat)
			sameBytes(t, "StripBundles(fat)", strip(t, fat), want)
			sameBytes(t, "StripBundles(host)", strip(t, host), want)

			bs, err := ReadBundles(bytes.NewReader(fat), int64(len(fat)))
			if err != nil {
				t.Fatal(err)
			}
			// The added bundles come last, after any the host had.
			had, err := ReadBundles(bytes.NewReader(host), int64(len(host)))
			if err != nil {
				t.Fatal(err)
			}
			if len(bs) != len(had)+len(secs) {
				t.Fatalf("ReadBundles: %d bundles, want %d", len(bs), len(had)+len(secs))
			}
			for i, b := range bs[len(had):] {
				payload := make([]byte, secs[i].Size)
				secs[i].Data.ReadAt(payload, 0)
				if BundlePrefix+b.ID != secs[i].Name || !bytes.Equal(fat[b.Offset:b.Offset+b.Size], payload) {
					t.Errorf("bundle %d: %+v, want %s with its payload", i, b, secs[i].Name)
				}
				if b.HostPlaceholder != (i == 0) {
					t.Errorf("bundle %d: HostPlaceholder = %v", i, b.HostPlaceholder)
				}
			}
		})
	}
}

// TestGoldenStripOnly covers fat objects made otherwise: by clang for HIP,
// and by llvm-mc with bundle sections between others, in a COMDAT group,
// with symbols and relocations of their own.
func TestGoldenStripOnly(t *testing.T) {
	for _, name := range []string{"hip-rdc", "removal", "removal-group"} {
		t.Run(name, func(t *testing.T) {
			fat := readFile(t, "testdata/"+name+".fat.o")
			sameBytes(t, "StripBundles", strip(t, fat), readFile(t, "testdata/"+name+".strip.o"))
		})
	}
	fat := readFile(t, "testdata/hip-rdc.fat.o")
	bs, err := ReadBundles(bytes.NewReader(fat), int64(len(fat)))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range bs {
		got = append(got, b.ID)
		if b.HostPlaceholder != strings.HasPrefix(b.ID, "host-") {
			t.Errorf("%s: HostPlaceholder = %v", b.ID, b.HostPlaceholder)
		}
	}
	want := []string{"hip-amdgcn-amd-amdhsa--gfx906", "host-x86_64-pc-linux-gnu-"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("hip-rdc bundles %q, want %q", got, want)
	}
	if bs[0].Size < 1000 || !bytes.HasPrefix(fat[bs[0].Offset:], []byte("BC\xc0\xde")) {
		t.Errorf("hip-rdc device bundle %+v is not the device bitcode (-fgpu-rdc)", bs[0])
	}
}

func TestAddToFatObjectAppendsAgain(t *testing.T) {
	fat := readFile(t, "testdata/clang-O1.fat.o")
	secs := goldenSections(t)[:1]
	out := addSections(t, fat, secs)
	bs, err := ReadBundles(bytes.NewReader(out), int64(len(out)))
	if err != nil || len(bs) != 4 || bs[3].ID != bs[0].ID {
		t.Fatalf("ReadBundles after adding a duplicate = %+v, %v", bs, err)
	}
	sameBytes(t, "StripBundles", strip(t, out), readFile(t, "testdata/clang-O1.strip.o"))
}

func TestStringTableOrder(t *testing.T) {
	b := newStrtab()
	for _, s := range []string{"bss_v", "str", "fp", "foo", "g", "a.c", ".text", ".rela.text", "", "\xc3\xa9"} {
		b.add(s)
	}
	b.finalize()
	want := "\x00\xc3\xa9\x00bss_v\x00.rela.text\x00str\x00fp\x00foo\x00g\x00a.c\x00"
	if string(b.data) != want {
		t.Errorf("table %q, want %q", b.data, want)
	}
	if b.offset(".text") != b.offset(".rela.text")+5 || b.offset("") != 0 {
		t.Errorf("offsets: .text %d, .rela.text %d, empty %d", b.offset(".text"), b.offset(".rela.text"), b.offset(""))
	}
}

func TestCOFFBundles(t *testing.T) {
	b := readFile(t, "testdata/coff-x86_64.fat.obj")
	if !IsObject(bytes.NewReader(b), int64(len(b))) || IsELF(bytes.NewReader(b), int64(len(b))) {
		t.Fatal("COFF object not recognised as a non-ELF object")
	}
	bs, err := ReadBundles(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	want := []Bundle{
		{ID: "host-x86_64-pc-windows-msvc-", Size: 1, HostPlaceholder: true},
		{ID: "hip-amdgcn-amd-amdhsa--gfx906", Size: 4},
		{ID: "hip-amdgcn-amd-amdhsa--gfx908", Size: 1, HostPlaceholder: true},
	}
	if len(bs) != len(want) {
		t.Fatalf("got %+v", bs)
	}
	for i, g := range bs {
		w := want[i]
		w.Offset = g.Offset
		if g != w {
			t.Errorf("bundle %d: %+v, want %+v", i, g, w)
		}
	}
	if string(b[bs[1].Offset:bs[1].Offset+4]) != "ABCD" {
		t.Errorf("gfx906 payload %q", b[bs[1].Offset:bs[1].Offset+4])
	}
}

// TestStreamFiles writes through *os.File on both sides (the path that uses
// copy_file_range) with a payload larger than the copy buffers.
func TestStreamFiles(t *testing.T) {
	dir := t.TempDir()
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	os.WriteFile(filepath.Join(dir, "big"), big, 0o666)
	host, _ := os.Open("testdata/clang-O1.host.o")
	defer host.Close()
	payload, _ := os.Open(filepath.Join(dir, "big"))
	defer payload.Close()
	out, err := os.Create(filepath.Join(dir, "fat.o"))
	if err != nil {
		t.Fatal(err)
	}
	hi, _ := host.Stat()
	secs := []Section{{Name: BundlePrefix + "host-x86_64-unknown-linux-gnu-", Data: bytes.NewReader([]byte{0}), Size: 1},
		{Name: BundlePrefix + "hip-amdgcn-amd-amdhsa--gfx906", Data: payload, Size: int64(len(big))}}
	if err := AddSections(out, host, hi.Size(), secs); err != nil {
		t.Fatal(err)
	}
	out.Close()
	secs[1].Data = bytes.NewReader(big)
	sameBytes(t, "AddSections to a file", readFile(t, out.Name()), addSections(t, readFile(t, "testdata/clang-O1.host.o"), secs))

	fat, _ := os.Open(out.Name())
	defer fat.Close()
	fi, _ := fat.Stat()
	stripped, _ := os.Create(filepath.Join(dir, "strip.o"))
	if err := StripBundles(stripped, fat, fi.Size()); err != nil {
		t.Fatal(err)
	}
	stripped.Close()
	sameBytes(t, "StripBundles to a file", readFile(t, stripped.Name()), readFile(t, "testdata/clang-O1.strip.o"))
}
