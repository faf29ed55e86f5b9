package objfmt

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/goffload/goffload/internal/format/magic"
	"github.com/goffload/goffload/internal/test/llvmref"
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
	machoType0 := bytes.Clone(macho)
	macho[12] = 1 // MH_OBJECT
	coff := make([]byte, 20)
	copy(coff, "\x64\x86")
	bigobj := make([]byte, 56) // as llvm-mc writes past 65279 sections, here with none
	copy(bigobj, "\x00\x00\xff\xff\x02\x00\x64\x86")
	copy(bigobj[12:], magic.BigObjClassID)
	importLib := []byte("\x00\x00\xff\xff\x00\x00\x64\x86\x00\x00\x00\x00\x10\x00\x00\x00\x00\x00\x08\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00")
	cases := map[string]struct {
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
		"macho-64-type-0":    {machoType0, false},
		"wasm":               {[]byte("\x00asm\x01\x00\x00\x00"), true},
		"coff-x86-64":        {coff, true},
		"coff-bigobj":        {bigobj, true},
		"coff-bigobj-trunc":  {bigobj[:40], true}, // an import library's header to LLVM: no sections
		"coff-import-lib":    {importLib, false},
		"coff-fat":           {readFile(t, "testdata/coff-x86_64.fat.obj"), true},
	}
	add := func(name string, data []byte, obj bool) {
		cases[name] = struct {
			data []byte
			obj  bool
		}{data, obj}
	}
	// COFF machines: LLVM 22 takes some for objects, not others.
	for _, m := range []struct {
		machine uint16
		obj     bool
	}{
		{0x0000, true}, {0x014c, true}, {0x024c, true}, {0x01c4, true}, {0x02c4, true}, {0xaa64, true}, {0xa641, true}, {0xa64e, true},
		{0x01f0, true}, {0x02f0, true}, {0x0183, true}, {0x0284, true}, {0x0166, true}, {0x0266, true}, {0x0150, true}, {0x0250, true},
		{0x0290, true}, {0x0268, true},
		{0x01c0, false}, {0x01c2, false}, {0x0200, false}, {0x0169, false}, {0x0366, false}, {0x01a2, false}, {0x5064, false},
		{0x0190, false}, {0x0168, false}, {0x0100, false},
	} {
		c := bytes.Clone(coff)
		binary.LittleEndian.PutUint16(c, m.machine)
		add(fmt.Sprintf("coff-machine-%04x", m.machine), c, m.obj)
	}
	le := binary.LittleEndian
	withU16 := func(b []byte, off int, v uint16) []byte { c := bytes.Clone(b); le.PutUint16(c[off:], v); return c }
	withU32 := func(b []byte, off int, v uint32) []byte { c := bytes.Clone(b); le.PutUint32(c[off:], v); return c }
	// LLVM ignores a symbol table it cannot read, and reads a section
	// count of 0xFFFF as an import library's header: no sections.
	add("coff-symtab-past-eof", withU32(withU32(coff, 8, 1000), 12, 3), true)
	add("coff-symptr-0-nsym-3", withU32(coff, 12, 3), true)
	add("coff-nsec-ffff", withU16(coff, 2, 0xffff), true)
	add("coff-sections-past-eof", withU16(coff, 2, 1), false)
	add("coff-19", coff[:19], false)
	add("coff-opt-past-eof", withU16(coff, 16, 8), false)
	add("coff-bigobj-28", bigobj[:28], true)
	add("coff-bigobj-55", bigobj[:55], true)
	add("coff-bigobj-v1-sections-past-eof", withU32(withU16(bigobj, 4, 1), 44, 100), true)
	add("coff-bigobj-symtab-past-eof", withU32(withU32(bigobj, 48, 1000), 52, 5), true)
	add("coff-bigobj-sections-past-eof", withU32(bigobj, 44, 1), false)
	// PE images: the COFF header, a PE32 or PE32+ optional header and its
	// data directory, the section table.
	pe := func(lfanew int, coffHdr, tail []byte) []byte {
		b := make([]byte, max(lfanew, 0x40))
		copy(b, "MZ")
		le.PutUint32(b[0x3c:], uint32(lfanew))
		b = append(b, "PE\x00\x00"...)
		b = append(b, coffHdr...)
		return append(b, tail...)
	}
	pe32 := withU16(make([]byte, 96), 0, 0x10b)
	pe32plus := withU16(make([]byte, 112), 0, 0x20b)
	add("pe-no-optional-header", pe(0x40, coff, nil), false)
	add("pe32", pe(0x40, withU16(coff, 16, 96), pe32), true)
	add("pe32-cut", pe(0x40, withU16(coff, 16, 96), pe32[:95]), false)
	add("pe32plus", pe(0x40, withU16(coff, 16, 112), pe32plus), true)
	add("pe32plus-opt-size-0", pe(0x40, coff, pe32plus), true)
	add("pe-bad-optional-magic", pe(0x40, withU16(coff, 16, 112), make([]byte, 112)), false)
	add("pe32plus-datadir", pe(0x40, withU16(coff, 16, 128), append(withU32(pe32plus, 108, 2), make([]byte, 16)...)), true)
	add("pe32plus-datadir-cut", pe(0x40, withU16(coff, 16, 128), append(withU32(pe32plus, 108, 2), make([]byte, 15)...)), false)
	add("pe32plus-sections-past-eof", pe(0x40, withU16(withU16(coff, 16, 112), 2, 1), pe32plus), false)
	add("pe-nsec-ffff", pe(0x40, withU16(coff, 2, 0xffff), nil), true)
	add("pe-signature-at-0x80", pe(0x80, withU16(coff, 16, 112), pe32plus), true)
	add("pe-machine-01c0", pe(0x40, withU16(withU16(coff, 16, 112), 0, 0x1c0), pe32plus), true)
	add("mz-no-signature", withU32(append([]byte("MZ"), make([]byte, 0x100)...), 0x3c, 0x40), false)
	// Under 68 bytes, an MS-DOS stub with a signature is read as a COFF
	// header from its first byte.
	mz64 := make([]byte, 64)
	copy(mz64, "MZ")
	copy(mz64[0x20:], "PE\x00\x00")
	le.PutUint32(mz64[0x3c:], 0x20)
	add("mz-64-bytes", mz64, true)
	add("mz-64-bytes-sections-past-eof", withU16(mz64, 2, 2), false)
	// GOFF: identified, but not an object to LLVM 22.
	goff := make([]byte, 80)
	copy(goff, "\x03\xf0\x00")
	add("goff", goff, false)
	add("goff-clang", readFile(t, "testdata/clang-zos.goff"), false)
	// DirectX containers.
	dx := func(parts ...string) []byte {
		b := []byte("DXBC")
		b = append(b, make([]byte, 24)...)
		b = le.AppendUint32(b, uint32(len(parts)))
		off := 32 + 4*len(parts)
		var body []byte
		for _, p := range parts {
			b = le.AppendUint32(b, uint32(off+len(body)))
			body = append(body, p[:4]...)
			body = le.AppendUint32(body, uint32(len(p)-4))
			body = append(body, p[4:]...)
		}
		return append(b, body...)
	}
	z := func(n int) string { return string(make([]byte, n)) }
	add("dxcontainer", dx(), true)
	add("dxcontainer-31", dx()[:31], false)
	add("dxcontainer-count-past-eof", withU32(dx(), 28, 1000), false)
	add("dxcontainer-unknown-part", dx("ABCD1234"), true)
	add("dxcontainer-part-cut", dx("ABCD1234")[:len(dx("ABCD1234"))-4], true)
	add("dxcontainer-part-header-cut", dx("ABCD")[:len(dx("ABCD"))-2], false)
	add("dxcontainer-hash", dx("HASH"+z(20)), true)
	add("dxcontainer-hash-short", dx("HASH"+z(10)), false)
	add("dxcontainer-hash-twice", dx("HASH"+z(20), "HASH"+z(20)), false)
	add("dxcontainer-sfi0", dx("SFI0"+z(8)), true)
	add("dxcontainer-sfi0-short", dx("SFI0"+z(4)), false)
	add("dxcontainer-dxil", dx("DXIL"+z(24)), true)
	add("dxcontainer-dxil-short", dx("DXIL"+z(20)), false)
	add("dxcontainer-isg1", dx("ISG1"+z(8)), true)
	add("dxcontainer-isg1-short", dx("ISG1"+z(4)), false)
	add("dxcontainer-isg1-params-past-part", dx("ISG1\x02\x00\x00\x00\x08\x00\x00\x00"+z(40)), false)
	add("dxcontainer-psv0-without-dxil", dx("PSV0"+z(8)), false)
	add("dxcontainer-rts0", dx("RTS0"+z(24)), true)
	return cases
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
	t.Parallel()
	bundler := llvmref.Need(t, "clang-offload-bundler")
	dir := t.TempDir()
	dev := filepath.Join(dir, "dev.bin")
	os.WriteFile(dev, []byte("ABCD"), 0o666)
	cases := identifyCases(t)
	// The ELF edge cases; each run of the bundler costs a fraction of a
	// second, so they run in parallel.
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
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
		})
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
