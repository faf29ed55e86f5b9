package magic

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goffload/goffload/internal/test/llvmref"
)

// pad returns s followed by zeros up to n bytes.
func pad(s string, n int) []byte {
	b := make([]byte, max(n, len(s)))
	copy(b, s)
	return b
}

// coffHeader is a 20-byte COFF file header of machine b0 b1 and no sections.
func coffHeader(b0, b1 byte) []byte { return []byte{b0, b1, 18: 0, 19: 0} }

// elfHeader is the first 18 bytes of an ELF header: little-endian (data 1)
// or big-endian (data 2), with e_type stored as t.
func elfHeader(data byte, t uint16) []byte {
	b := pad("\x7fELF\x02", 18)
	b[5] = data
	if data == 2 {
		binary.BigEndian.PutUint16(b[16:], t)
	} else {
		binary.LittleEndian.PutUint16(b[16:], t)
	}
	return b
}

// machO is a 64-bit (or, with bits 32, 32-bit) thin Mach-O header with
// file type ft, stored little-endian or big-endian, cut to n bytes.
func machO(bits int, bigEndian bool, ft uint32, n int) []byte {
	b := make([]byte, 32)
	m := uint32(0xfeedfacf)
	if bits == 32 {
		m = 0xfeedface
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if bigEndian {
		bo = binary.BigEndian
	}
	bo.PutUint32(b, m)
	bo.PutUint32(b[12:], ft)
	return b[:n]
}

// mz is an MS-DOS stub of size n whose e_lfanew is off, with "PE\0\0" at
// off when it fits.
func mz(n int, off uint32) []byte {
	b := make([]byte, n)
	copy(b, "MZ")
	if n >= 0x40 {
		binary.LittleEndian.PutUint32(b[0x3c:], off)
	}
	if int64(off)+4 <= int64(n) {
		copy(b[off:], "PE\x00\x00")
	}
	return b
}

const bigObjHead = "\x00\x00\xff\xff\x02\x00\x64\x86\x00\x00\x00\x00" + BigObjClassID

type kindCase struct {
	name string
	in   []byte
	want Kind
}

func kindCases() []kindCase {
	cs := []kindCase{
		{"empty", nil, Unknown},
		{"3 bytes", []byte("\x64\x86\x00"), Unknown},
		{"text", []byte("hello, world\n"), Unknown},

		// COFF machines, established by running llvm-nm, llvm-ar and
		// clang-offload-bundler 22.1.8 on 20-byte headers of every
		// machine (see TestCOFFMachines).
		{"coff unknown machine 00 00", coffHeader(0x00, 0x00), COFFObject},
		{"coff 00 00 4 bytes", []byte{0, 0, 1, 2}, COFFObject},
		{"coff i386 4c 01", coffHeader(0x4c, 0x01), COFFObject},
		{"coff 4c 02", coffHeader(0x4c, 0x02), COFFObject},
		{"coff ARMNT c4 01", coffHeader(0xc4, 0x01), COFFObject},
		{"coff c4 02", coffHeader(0xc4, 0x02), COFFObject},
		{"coff x86-64 64 86", coffHeader(0x64, 0x86), COFFObject},
		{"coff ARM64 64 aa", coffHeader(0x64, 0xaa), COFFObject},
		{"coff ARM64EC 41 a6", coffHeader(0x41, 0xa6), COFFObject},
		{"coff ARM64X 4e a6", coffHeader(0x4e, 0xa6), COFFObject},
		{"coff PowerPC f0 01", coffHeader(0xf0, 0x01), COFFObject},
		{"coff f0 02", coffHeader(0xf0, 0x02), COFFObject},
		{"coff Alpha 83 01", coffHeader(0x83, 0x01), COFFObject},
		{"coff 83 02", coffHeader(0x83, 0x02), COFFObject},
		{"coff Alpha64 84 01", coffHeader(0x84, 0x01), COFFObject},
		{"coff 84 02", coffHeader(0x84, 0x02), COFFObject},
		{"coff R4000 66 01", coffHeader(0x66, 0x01), COFFObject},
		{"coff 66 02", coffHeader(0x66, 0x02), COFFObject},
		{"coff mc68k 50 01", coffHeader(0x50, 0x01), COFFObject},
		{"coff 50 02", coffHeader(0x50, 0x02), COFFObject},
		{"coff PA-RISC 90 02", coffHeader(0x90, 0x02), COFFObject},
		{"coff mc68k 68 02", coffHeader(0x68, 0x02), COFFObject},
		// Machines Microsoft defines that LLVM 22 does not take for COFF.
		{"coff ARM c0 01", coffHeader(0xc0, 0x01), Unknown},
		{"coff Thumb c2 01", coffHeader(0xc2, 0x01), Unknown},
		{"coff IA64 00 02", coffHeader(0x00, 0x02), Unknown},
		{"coff R3000 62 01", coffHeader(0x62, 0x01), Unknown},
		{"coff WCEMIPSV2 69 01", coffHeader(0x69, 0x01), Unknown},
		{"coff SH3 a2 01", coffHeader(0xa2, 0x01), Unknown},
		{"coff AM33 d3 01", coffHeader(0xd3, 0x01), Unknown},
		{"coff EBC bc 0e", coffHeader(0xbc, 0x0e), Unknown},
		{"coff RISCV64 64 50", coffHeader(0x64, 0x50), Unknown},
		{"coff LoongArch64 64 62", coffHeader(0x64, 0x62), Unknown},
		{"coff 00 01", coffHeader(0x00, 0x01), Unknown},
		{"coff 4c 03", coffHeader(0x4c, 0x03), Unknown},
		{"coff 64 02", coffHeader(0x64, 0x02), Unknown},
		{"coff 90 01", coffHeader(0x90, 0x01), Unknown},
		{"coff 68 01", coffHeader(0x68, 0x01), Unknown},
		{"coff 41 a7", coffHeader(0x41, 0xa7), Unknown},
		{"coff 4e aa", coffHeader(0x4e, 0xaa), Unknown},

		// COFF headers beginning 00 00 FF FF.
		{"bigobj", pad(bigObjHead, 56), COFFObject},
		{"bigobj 28 bytes", []byte(bigObjHead), COFFObject},
		{"bigobj 27 bytes", []byte(bigObjHead[:27]), COFFImportLibrary},
		{"bigobj version 0", pad("\x00\x00\xff\xff\x00\x00\x64\x86\x00\x00\x00\x00"+BigObjClassID, 56), COFFObject},
		{"import library", pad("\x00\x00\xff\xff\x00\x00\x64\x86", 32), COFFImportLibrary},
		{"import library 4 bytes", []byte("\x00\x00\xff\xff"), COFFImportLibrary},
		{"cl /GL object", pad("\x00\x00\xff\xff\x01\x00\x64\x86\x00\x00\x00\x00"+clGlClassID, 56), COFFClGlObject},
		{"windows resource", []byte(winResMagic), WindowsResource},
		{"windows resource cut", []byte(winResMagic[:15]), COFFObject},
		{"wasm", []byte("\x00asm\x01\x00\x00\x00"), Wasm},

		// PE images: the signature must lie within what Identify sees.
		{"PE sig at 0x40", mz(0x44, 0x40), PEExecutable},
		{"PE sig at 0x80", mz(0x84, 0x80), PEExecutable},
		{"PE sig past head", mz(0x40, 0x40), Unknown},
		{"PE sig offset huge", mz(0x100, 0xffffffff), Unknown},
		{"MZ 63 bytes", mz(0x3f, 0), Unknown},
		{"MZ without PE", pad("MZ", 0x100), Unknown},

		// ELF e_types, little- and big-endian.
		{"elf 17 bytes", elfHeader(1, 1)[:17], Unknown},
		{"elf magic only", []byte("\x7fELF"), Unknown},
		{"elf none", elfHeader(1, 0), ELFOther},
		{"elf rel", elfHeader(1, 1), ELFRelocatable},
		{"elf exec", elfHeader(1, 2), ELFExecutable},
		{"elf dyn", elfHeader(1, 3), ELFShared},
		{"elf core", elfHeader(1, 4), ELFCore},
		{"elf 5", elfHeader(1, 5), ELFOther},
		{"elf 0x0101", elfHeader(1, 0x0101), ELFOther},
		{"elf os-specific 0xfe00", elfHeader(1, 0xfe00), ELFOther},
		{"elf be rel", elfHeader(2, 1), ELFRelocatable},
		{"elf be exec", elfHeader(2, 2), ELFExecutable},
		{"elf be dyn", elfHeader(2, 3), ELFShared},
		{"elf be core", elfHeader(2, 4), ELFCore},
		{"elf be 0x0100", elfHeader(2, 0x0100), ELFOther},
		{"elf bad data byte reads LE", func() []byte { b := elfHeader(1, 3); b[5] = 7; return b }(), ELFShared},
		{"elf bad class", func() []byte { b := elfHeader(1, 1); b[4] = 9; return b }(), ELFRelocatable},

		// Mach-O: the header must be complete and the file type 1-12,
		// computed as LLVM computes it (see machOFileType).
		{"macho64 object", machO(64, false, 1, 32), MachO},
		{"macho64 file set", machO(64, false, 12, 32), MachO},
		{"macho64 type 0", machO(64, false, 0, 32), Unknown},
		{"macho64 type 13", machO(64, false, 13, 32), Unknown},
		{"macho64 31 bytes", machO(64, false, 1, 31), Unknown},
		{"macho32 object 28 bytes", machO(32, false, 1, 28), MachO},
		{"macho32 27 bytes", machO(32, false, 1, 27), Unknown},
		{"macho64 be object", machO(64, true, 1, 32), MachO},
		{"macho32 be executable", machO(32, true, 2, 28), MachO},
		{"macho be type 0x00100001", machO(64, true, 0x00100001, 32), MachO},
		{"macho be type 0x01000001", machO(64, true, 0x01000001, 32), MachO},
		{"macho be type 0x00010001", machO(64, true, 0x00010001, 32), Unknown},
		{"macho be type 0x81", machO(64, true, 0x81, 32), Unknown},
		{"macho le type 0x00100001", machO(64, false, 0x00100001, 32), MachO},
		{"macho le type 0x0100", machO(64, false, 0x0100, 32), Unknown},
		{"universal 1 arch", []byte("\xca\xfe\xba\xbe\x00\x00\x00\x01"), MachOUniversal},
		{"universal 0 archs", []byte("\xca\xfe\xba\xbe\x00\x00\x00\x00"), MachOUniversal},
		{"universal 42", []byte("\xca\xfe\xba\xbe\x00\x00\x00\x2a"), MachOUniversal},
		{"java class 43", []byte("\xca\xfe\xba\xbe\x00\x00\x00\x2b"), Unknown},
		{"java class 0x7f", []byte("\xca\xfe\xba\xbe\x00\x00\x00\x7f"), Unknown},
		{"universal 0x80 (signed char)", []byte("\xca\xfe\xba\xbe\x01\x02\x03\x80"), MachOUniversal},
		{"universal 7 bytes", []byte("\xca\xfe\xba\xbe\x00\x00\x00"), Unknown},
		{"universal64", []byte("\xca\xfe\xba\xbf\x00\x00\x00\x01"), MachOUniversal},
		{"universal64 43", []byte("\xca\xfe\xba\xbf\x00\x00\x00\x2b"), Unknown},

		// The rest of identify_magic.
		{"bitcode", []byte("BC\xc0\xde"), Bitcode},
		{"bitcode wrapper", []byte("\xde\xc0\x17\x0b"), Bitcode},
		{"archive", []byte("!<arch>\n"), Archive},
		{"thin archive", []byte("!<thin>\n"), Archive},
		{"big archive", []byte("<bigaf>\n"), Archive},
		{"archive cut", []byte("!<arch>"), Unknown},
		{"offload binary", []byte("\x10\xff\x10\xad\x01\x00\x00\x00"), OffloadBinary},
		{"bundle", []byte(BundleMagic + "\x02"), OffloadBundle},
		{"bundle magic alone", []byte(BundleMagic), Unknown},
		{"compressed bundle", []byte("CCOB\x03\x00"), CompressedBundle},
		{"clang AST", []byte("CPCH"), ClangAST},
		{"CUDA fat binary", []byte("\x50\xed\x55\xba\x01\x00"), CUDAFatBinary},
		{"SPIR-V", []byte("\x03\x02\x23\x07"), SPIRV},
		{"SPIR-V big-endian", []byte("\x07\x23\x02\x03"), SPIRV},
		{"XCOFF32", []byte("\x01\xdf\x00\x00"), XCOFF},
		{"XCOFF64", []byte("\x01\xf7\x00\x00"), XCOFF},
		{"GOFF", pad("\x03\xf0\x00", 80), GOFF},
		{"GOFF 3 bytes", []byte("\x03\xf0\x00"), Unknown},
		{"DXContainer", pad("DXBC", 32), DXContainer},
		{"TAPI JSON", []byte(`{"tapi_tbd_version": 5}`), Unknown},
	}
	return cs
}

func TestIdentify(t *testing.T) {
	for _, c := range kindCases() {
		if got := Identify(c.in); got != c.want {
			t.Errorf("%s: Identify(% x) = %v, want %v", c.name, c.in, got, c.want)
		}
		got, err := IdentifyReader(bytes.NewReader(c.in), int64(len(c.in)))
		if err != nil || got != c.want {
			t.Errorf("%s: IdentifyReader = %v, %v, want %v", c.name, got, err, c.want)
		}
	}
}

// TestCOFFMachineTable checks every two-byte start of a 20-byte COFF
// header against the machines LLVM 22 takes for COFF objects.
func TestCOFFMachineTable(t *testing.T) {
	coff := map[[2]byte]bool{{0x00, 0x00}: true, {0x64, 0x86}: true, {0x64, 0xaa}: true, {0x41, 0xa6}: true, {0x4e, 0xa6}: true,
		{0x90, 0x02}: true, {0x68, 0x02}: true}
	for _, b0 := range []byte{0x4c, 0xc4, 0xf0, 0x83, 0x84, 0x66, 0x50} {
		coff[[2]byte{b0, 0x01}], coff[[2]byte{b0, 0x02}] = true, true
	}
	for m := range 0x10000 {
		b0, b1 := byte(m), byte(m>>8)
		k := Identify(coffHeader(b0, b1))
		if want := coff[[2]byte{b0, b1}]; (k == COFFObject) != want {
			t.Errorf("% x: Identify = %v, want COFF object = %v", []byte{b0, b1}, k, want)
		}
	}
}

func TestKindMethods(t *testing.T) {
	objects := map[Kind]bool{ELFRelocatable: true, ELFExecutable: true, ELFShared: true, ELFCore: true, ELFOther: true,
		COFFObject: true, PEExecutable: true, MachO: true, Wasm: true, XCOFF: true, DXContainer: true}
	for k := Unknown; k <= DXContainer; k++ {
		if k.IsObject() != objects[k] {
			t.Errorf("%v.IsObject() = %v", k, k.IsObject())
		}
		if want := k >= ELFRelocatable && k <= ELFOther; k.IsELF() != want {
			t.Errorf("%v.IsELF() = %v", k, k.IsELF())
		}
		if s := k.String(); s == "" || (k != Unknown && s == "unknown") {
			t.Errorf("Kind(%d).String() = %q", k, s)
		}
	}
	if s := Kind(-1).String(); s != "unknown" {
		t.Errorf("Kind(-1).String() = %q", s)
	}
	if s := (DXContainer + 1).String(); s != "unknown" {
		t.Errorf("Kind(%d).String() = %q", DXContainer+1, s)
	}
}

func TestIsBigObj(t *testing.T) {
	for _, c := range []struct {
		in   string
		want bool
	}{
		{bigObjHead, true},
		{bigObjHead + "more", true},
		{bigObjHead[:27], false},
		{"\x00\x00\xff\xff\x01\x00\x64\x86\x00\x00\x00\x00" + clGlClassID, false},
		{"\x00\x01\xff\xff" + bigObjHead[4:], false},
	} {
		if got := IsBigObj([]byte(c.in)); got != c.want {
			t.Errorf("IsBigObj(% x) = %v", c.in, got)
		}
	}
}

// eofReader returns io.EOF along with the last bytes, as io.ReaderAt
// allows.
type eofReader struct{ b []byte }

func (r eofReader) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(r.b)) {
		return 0, io.EOF
	}
	n := copy(p, r.b[off:])
	if off+int64(n) == int64(len(r.b)) {
		return n, io.EOF
	}
	return n, nil
}

type failReader struct{ after int64 }

var errRead = errors.New("read failed")

func (r failReader) ReadAt(p []byte, off int64) (int, error) {
	if off >= r.after {
		return 0, errRead
	}
	n := copy(p, make([]byte, min(int64(len(p)), r.after-off)))
	if n < len(p) {
		return n, errRead
	}
	return n, nil
}

func TestIdentifyReader(t *testing.T) {
	// The PE signature far past the first Len bytes.
	pe := mz(0x1004, 0x1000)
	if k, err := IdentifyReader(bytes.NewReader(pe), int64(len(pe))); k != PEExecutable || err != nil {
		t.Errorf("PE at 0x1000: %v, %v", k, err)
	}
	if k := Identify(pe[:Len]); k != Unknown {
		t.Errorf("Identify(first %d bytes of a PE image) = %v", Len, k)
	}
	// The signature cut off by size.
	if k, err := IdentifyReader(bytes.NewReader(pe), 0x1003); k != Unknown || err != nil {
		t.Errorf("PE cut: %v, %v", k, err)
	}
	// Readers that return io.EOF with the last bytes.
	for _, c := range kindCases() {
		if k, err := IdentifyReader(eofReader{c.in}, int64(len(c.in))); k != c.want || err != nil {
			t.Errorf("%s: IdentifyReader(eofReader) = %v, %v, want %v", c.name, k, err, c.want)
		}
	}
	if k, err := IdentifyReader(eofReader{pe}, int64(len(pe))); k != PEExecutable || err != nil {
		t.Errorf("PE with eofReader: %v, %v", k, err)
	}
	// Read errors, and a size larger than the data.
	if _, err := IdentifyReader(failReader{0}, 100); !errors.Is(err, errRead) {
		t.Errorf("failing reader: err = %v", err)
	}
	if _, err := IdentifyReader(bytes.NewReader([]byte("!<arch>\n")), 100); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("size past the data: err = %v", err)
	}
	b := mz(0x44, 0x40)
	for _, after := range []int64{0x3d, 0x41} { // failing on the pointer, then on the signature
		fr := &prefixReader{b: b, fail: after}
		if _, err := IdentifyReader(fr, int64(len(b))); !errors.Is(err, errRead) {
			t.Errorf("PE read failing at %#x: err = %v", after, err)
		}
	}
	if k, err := IdentifyReader(bytes.NewReader(nil), -1); k != Unknown || err != nil {
		t.Errorf("negative size: %v, %v", k, err)
	}
}

// prefixReader serves b but fails reads that reach offset fail.
type prefixReader struct {
	b    []byte
	fail int64
}

func (r *prefixReader) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > r.fail {
		return 0, errRead
	}
	return copy(p, r.b[off:]), nil
}

var updateCOFF = flag.Bool("update", false, "rewrite testdata/coff-machines.txt by running llvm-nm 22 on a COFF header of every machine number")

const coffTable = "testdata/coff-machines.txt"

// coffMachines is what llvm-nm 22 makes of a 20-byte COFF header of each
// machine number: "read" (it lists no symbols), "other" (some other
// error); machines not named are "not recognized as a valid object file".
// It comes from testdata/coff-machines.txt, or with -update from llvm-nm
// itself, and then is written there.
func coffMachines(t *testing.T) map[uint16]string {
	t.Helper()
	if *updateCOFF {
		return probeCOFFMachines(t)
	}
	data, err := os.ReadFile(coffTable)
	if err != nil {
		t.Fatal(err)
	}
	m := map[uint16]string{}
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var machine uint16
		var state string
		if _, err := fmt.Sscanf(line, "%04x %s", &machine, &state); err != nil || (state != "read" && state != "other") {
			t.Fatalf("%s:%d: %q: want \"<4 hex digits> read|other\"", coffTable, i+1, line)
		}
		m[machine] = state
	}
	return m
}

// probeCOFFMachines runs llvm-nm 22 on a COFF header of every machine
// number and writes what it said to testdata/coff-machines.txt.
func probeCOFFMachines(t *testing.T) map[uint16]string {
	t.Helper()
	nm := llvmref.Need(t, "llvm-nm")
	dir := t.TempDir()
	names := make([]string, 0, 0x10000)
	for m := range 0x10000 {
		name := fmt.Sprintf("%04x", m)
		if err := os.WriteFile(filepath.Join(dir, name), coffHeader(byte(m>>8), byte(m)), 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	read := map[string]bool{}   // llvm-nm read it: "no symbols"
	notObj := map[string]bool{} // "The file was not recognized as a valid object file"
	for len(names) > 0 {
		batch := names[:min(len(names), 4096)]
		names = names[len(batch):]
		res := llvmref.Run(t, dir, nil, nil, append([]string{nm}, batch...)...)
		for _, line := range strings.Split(string(res.Stderr), "\n") {
			switch {
			case strings.HasSuffix(line, ": no symbols"):
				read[strings.TrimSuffix(line, ": no symbols")] = true
			case strings.HasSuffix(line, ": The file was not recognized as a valid object file"):
				f := strings.TrimSuffix(line, ": The file was not recognized as a valid object file")
				notObj[f[strings.LastIndex(f, " ")+1:]] = true
			}
		}
	}
	if len(read) < 20 || len(notObj) < 60000 {
		t.Fatalf("llvm-nm read %d files and rejected %d: output not understood", len(read), len(notObj))
	}
	m := map[uint16]string{}
	var b strings.Builder
	b.WriteString("# What llvm-nm 22 makes of a 20-byte COFF header of each machine number\n")
	b.WriteString("# (go test ./magic -run COFFMachines -update): read, or some other error;\n")
	b.WriteString("# machines not listed are \"not recognized as a valid object file\".\n")
	for mc := range 0x10000 {
		name := fmt.Sprintf("%04x", mc)
		switch {
		case read[name]:
			m[uint16(mc)] = "read"
		case !notObj[name]:
			m[uint16(mc)] = "other"
		default:
			continue
		}
		fmt.Fprintf(&b, "%s %s\n", name, m[uint16(mc)])
	}
	if err := os.WriteFile(coffTable, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCOFFMachines checks that Identify takes for an object exactly the
// COFF headers llvm-nm 22 reads, and no header it does not recognise, over
// every machine number (testdata/coff-machines.txt; -update remakes it).
func TestCOFFMachines(t *testing.T) {
	states := coffMachines(t)
	read := 0
	for m := range 0x10000 {
		k := Identify(coffHeader(byte(m>>8), byte(m)))
		switch state := states[uint16(m)]; {
		case state == "read" && k != COFFObject && k != XCOFF:
			t.Errorf("%04x: llvm-nm reads it, Identify says %v", m, k)
		case state == "" && k.IsObject():
			t.Errorf("%04x: llvm-nm does not recognise it, Identify says %v", m, k)
		}
		if states[uint16(m)] == "read" {
			read++
		}
	}
	if read < 20 {
		t.Errorf("%s: only %d machines read", coffTable, read)
	}
}
