package objfmt

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/goffload/goffload/internal/llvmref"
)

// patched returns a copy of b with p written at off.
func patched(b []byte, off int, p ...byte) []byte {
	c := bytes.Clone(b)
	copy(c[off:], p)
	return c
}

// identifyCases are inputs with whether createBinary gives an ObjectFile
// for them (checked against clang-offload-bundler 22 by TestIsObjectBundler).
func identifyCases(t testing.TB) map[string]struct {
	data []byte
	obj  bool
} {
	elf := readFile(t, "testdata/clang-O1.host.o") // shoff 0x290, 14 sections
	var shnum0 []byte = patched(elf, 60, 0, 0)     // e_shnum 0: count in section 0 (0 here)
	macho := make([]byte, 32)
	binary.LittleEndian.PutUint32(macho, 0xfeedfacf)
	coff := make([]byte, 20)
	copy(coff, "\x64\x86")
	bigobj := make([]byte, 56) // as llvm-mc writes past 65279 sections, here with none
	copy(bigobj, "\x00\x00\xff\xff\x02\x00\x64\x86")
	copy(bigobj[12:], bigObjMagic)
	importLib := []byte("\x00\x00\xff\xff\x00\x00\x64\x86\x00\x00\x00\x00\x10\x00\x00\x00\x00\x00\x08\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00")
	return map[string]struct {
		data []byte
		obj  bool
	}{
		"elf":                {elf, true},
		"elf-i686":           {readFile(t, "testdata/clang-i686.host.o"), true},
		"elf-ppc64-be":       {readFile(t, "testdata/clang-ppc64.host.o"), true},
		"elf-shared":         {readFile(t, "testdata/clang-shared.host.o"), true},
		"elf-exe":            {readFile(t, "testdata/clang-exe.host.o"), true},
		"elf-unknown-type":   {patched(elf, 16, 9), true},
		"elf-bad-version":    {patched(elf, 6, 5), true},
		"elf-shnum0":         {shnum0, true},
		"elf-no-sections":    {patched(elf, 40, 0, 0, 0, 0, 0, 0, 0, 0), true},
		"elf-bad-sh_name":    {patched(elf, 0x290+128, 0xff, 0xff), true}, // objcopy fails later
		"elf-trunc-20":       {elf[:20], false},
		"elf-trunc-64":       {elf[:64], false},
		"elf-trunc-100":      {elf[:100], false},
		"elf-trunc-1000":     {elf[:1000], false},
		"elf-shoff-past-eof": {patched(elf, 40, 0xff, 0x0f), false},
		"elf-bad-shentsize":  {patched(elf, 58, 0x30), false},
		"elf-bad-class":      {patched(elf, 4, 5), false},
		"elf-bad-data":       {patched(elf, 5, 5), false},
		"elf-huge-shnum0":    {patched(shnum0, 0x290+32, 0xff, 0xff), false},
		"magic-only":         {[]byte("\x7fELF"), false},
		"empty":              {nil, false},
		"text":               {[]byte("hello\n"), false},
		"bitcode":            {[]byte("BC\xc0\xde\x35\x14\x00\x00\x05\x00\x00\x00\x62\x0c\x30\x24"), false},
		"archive":            {[]byte("!<arch>\n"), false},
		"macho-universal":    {[]byte("\xca\xfe\xba\xbe\x00\x00\x00\x01\x01\x00\x00\x07\x00\x00\x00\x03\x00\x00\x10\x00\x00\x00\x00\x10\x00\x00\x00\x0c"), false},
		"macho-64":           {macho, true},
		"wasm":               {[]byte("\x00asm\x01\x00\x00\x00"), true},
		"coff-x86-64":        {coff, true},
		"coff-bigobj":        {bigobj, true},
		"coff-bigobj-trunc":  {bigobj[:40], false},
		"coff-import-lib":    {importLib, false},
		"coff-fat":           {readFile(t, "testdata/coff-x86_64.fat.obj"), true},
	}
}

func TestIsObject(t *testing.T) {
	for name, c := range identifyCases(t) {
		if got := IsObject(bytes.NewReader(c.data), int64(len(c.data))); got != c.obj {
			t.Errorf("%s: IsObject = %v, want %v", name, got, c.obj)
		}
		isELF := IsELF(bytes.NewReader(c.data), int64(len(c.data)))
		if isELF && !c.obj {
			t.Errorf("%s: IsELF = true for a non-object", name)
		}
	}
}

// TestIsObjectBundler checks IsObject against clang-offload-bundler 22: for
// -type=o it writes the binary format (starting with the magic string) when
// the host is not an object file, and runs llvm-objcopy otherwise.
func TestIsObjectBundler(t *testing.T) {
	bundler := llvmref.Need(t, "clang-offload-bundler")
	dir := t.TempDir()
	dev := filepath.Join(dir, "dev.bin")
	os.WriteFile(dev, []byte("ABCD"), 0o666)
	cases := identifyCases(t)
	// The ELF edge cases; each run of the bundler costs a fraction of a second.
	for _, name := range []string{"elf", "elf-shnum0", "elf-bad-sh_name", "elf-trunc-100",
		"elf-shoff-past-eof", "elf-bad-shentsize", "elf-huge-shnum0", "elf-bad-class"} {
		c := cases[name]
		in := filepath.Join(dir, name)
		out := in + ".out"
		os.WriteFile(in, c.data, 0o666)
		llvmref.Run(t, dir, nil, nil, bundler, "-type=o",
			"-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx906",
			"-input="+in, "-input="+dev, "-output="+out)
		got, _ := os.ReadFile(out)
		binaryFormat := bytes.HasPrefix(got, []byte(BundlePrefix))
		if binaryFormat == c.obj {
			t.Errorf("%s: bundler used the binary format = %v, but IsObject case says object = %v", name, binaryFormat, c.obj)
		}
	}
}

func TestWasmBundles(t *testing.T) {
	b := readFile(t, "testdata/wasm.fat.o")
	bs, err := ReadBundles(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 2 || bs[0].ID != "hip-amdgcn-amd-amdhsa--gfx906" || bs[1].ID != "host-x86_64-unknown-linux-gnu-" ||
		string(b[bs[0].Offset:bs[0].Offset+bs[0].Size]) != "ABCD" || !bs[1].HostPlaceholder || bs[0].HostPlaceholder {
		t.Errorf("bundles %+v", bs)
	}
	// Section framing past the end: not an object (LLVM falls back to
	// the binary format).
	if IsObject(bytes.NewReader(b[:len(b)-3]), int64(len(b)-3)) {
		t.Error("truncated WebAssembly file taken for an object")
	}
}
