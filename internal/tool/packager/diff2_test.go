package packager_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/goffload/goffload/internal/test/difftest"
)

// Malformed COFF and ELF objects: LLVM's object-reader checks and messages.
func TestDiffHostileObjects(t *testing.T) {
	t.Parallel()
	win, err := os.ReadFile(filepath.Join(inputs, "omp_win.obj"))
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	p32 := func(b []byte, off int, v uint32) []byte {
		out := bytes.Clone(b)
		le.PutUint32(out[off:], v)
		return out
	}
	p16 := func(b []byte, off int, v uint16) []byte {
		out := bytes.Clone(b)
		le.PutUint16(out[off:], v)
		return out
	}
	nsec := int(le.Uint16(win[2:]))
	symPtr, nsym := int(le.Uint32(win[8:])), int(le.Uint32(win[12:]))
	strtab := symPtr + nsym*18
	rows := map[string][]byte{
		"coff symptr past end": p32(win, 8, uint32(len(win)+100)),
		"coff nsym big":        p32(win, 12, 100000),
		"coff strtab big":      p32(win, strtab, 100000),
		"coff strtab 2":        p32(win, strtab, 2),
		"coff strtab 0":        p32(win, strtab, 0),
		"coff nsec big":        p16(win, 2, 1000),
		"coff nsec 0xffff":     p16(win, 2, 0xffff), // an import library header to LLVM: no sections
		"coff opthdr big":      p16(win, 16, 60000),
		"coff no symtab":       p32(p32(win, 8, 0), 12, 0),
		"coff truncated":       win[:30],
		"coff header only":     win[:20],
	}
	for i := range nsec {
		o := 20 + i*40
		name := string(win[o : o+8])
		set := func(key string, off int, b []byte) {
			out := bytes.Clone(win)
			copy(out[off:], b)
			rows[key] = out
		}
		switch {
		case name[:3] == "/24":
			rows["coff raw ptr"] = p32(win, o+20, uint32(len(win)+1))
			rows["coff raw size"] = p32(win, o+16, 100000)
			set("coff name offset", o, []byte("/99999\x00\x00"))
			set("coff name bad", o, []byte("/abc\x00\x00\x00\x00"))
			set("coff name base64", o, []byte("//AAAAAY"))
			set("coff inline name", o, []byte(".llvm.of"))
		case name[:5] == ".text":
			rows["coff other section past end"] = p32(win, o+20, uint32(len(win)+1))
		}
	}
	knew, err := os.ReadFile(filepath.Join(inputs, "knew.o"))
	if err != nil {
		t.Fatal(err)
	}
	shoff := int(le.Uint64(knew[0x28:]))
	shnum := int(le.Uint16(knew[0x3c:]))
	p64 := func(b []byte, off int, v uint64) []byte {
		out := bytes.Clone(b)
		le.PutUint64(out[off:], v)
		return out
	}
	for i := range shnum {
		o := shoff + i*64
		if le.Uint32(knew[o+4:]) == 0x6fff4c0b {
			rows["elf section offset"] = p64(knew, o+0x18, 0x100000)
			rows["elf section size"] = p64(knew, o+0x20, 0x100000)
			rows["elf section type cleared"] = p32(knew, o+4, 1)
		}
	}
	rows["elf shnum in section 0"] = p64(p16(knew, 0x3c, 0), shoff+0x20, uint64(shnum))
	rows["elf shnum huge"] = p64(p16(knew, 0x3c, 0), shoff+0x20, 1<<62)
	unal := append(bytes.Clone(knew), 0)
	unal = append(unal, knew[shoff:shoff+shnum*64]...)
	rows["elf unaligned shoff"] = p64(unal, 0x28, uint64(len(knew)+1))
	rows["elf shoff unaligned past end"] = p64(knew, 0x28, uint64(shoff+1))
	e32 := bytes.Clone(knew[:50])
	e32[4] = 1
	rows["elf32 short"] = e32
	rows["elf 17 bytes"] = knew[:17]
	rows["elf 18 bytes"] = knew[:18]

	// COFF bigobj headers: 56 bytes, at least version 2, else (like a file
	// too short for the header) a COFF object without sections.
	big, err := os.ReadFile(filepath.Join(inputs, "omp_big.obj"))
	if err != nil {
		t.Fatal(err)
	}
	rows["bigobj version 1"] = p16(big, 4, 1)
	rows["bigobj version 3"] = p16(big, 4, 3)
	rows["bigobj 40 bytes"] = big[:40]
	rows["bigobj 56 bytes"] = big[:56]
	rows["bigobj 500 bytes"] = big[:500]
	rows["bigobj no class ID"] = append(append(bytes.Clone(big[:12]), make([]byte, 16)...), big[28:]...)
	rows["bigobj sections past end"] = p32(big, 44, 1000)
	rows["bigobj machine arm64"] = p16(big, 6, 0xaa64)
	// COFF machines: LLVM 22's identify_magic takes some for objects (and
	// extracts their .llvm.offloading sections), not others that Microsoft
	// defines (nothing is extracted).
	for _, m := range []uint16{0x01f0, 0x01f1, 0x0166, 0x0266, 0x0150, 0x0250, 0x0183, 0x0284, 0x0290, 0x0268, 0x01c4,
		0x0000, 0x01c0, 0x01c2, 0x0200, 0x0169, 0x0190, 0x0168, 0x01a2, 0x5064, 0xaa64} {
		rows[fmt.Sprintf("coff machine %#04x", m)] = p16(win, 0, m)
	}
	var cases []difftest.Case
	for name, data := range rows {
		cases = append(cases, difftest.Case{Name: name, Files: map[string][]byte{"in.o": data},
			Args: []string{"in.o", "--image="}})
	}
	compare(t, cases)
}
