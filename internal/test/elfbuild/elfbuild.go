// Package elfbuild builds small ELF files for tests: an x86-64 shared
// object holding one bundle in .hip_fatbin, with the sections a test adds.
package elfbuild

import (
	"bytes"
	"encoding/binary"
)

// An Adder adds a section header: name, type, flags, address, file offset
// (^0 for where the tail bytes start), size, link and entry size.
type Adder = func(name string, typ uint32, flags, addr, off, size uint64, link uint32, entsize uint64)

// HIP builds an ELF64 LE x86-64 ET_DYN holding a one-entry binary
// bundle in .hip_fatbin, plus extra section headers.
func HIP(extra func(add Adder), tail []byte) []byte {
	le := binary.LittleEndian
	id := "hipv4-amdgcn-amd-amdhsa--gfx90a"
	payload := []byte("\x7fELFpayload")
	var b bytes.Buffer
	b.WriteString("__CLANG_OFFLOAD_BUNDLE__")
	binary.Write(&b, le, uint64(1))
	off := uint64(24 + 8 + 24 + len(id))
	binary.Write(&b, le, off)
	binary.Write(&b, le, uint64(len(payload)))
	binary.Write(&b, le, uint64(len(id)))
	b.WriteString(id)
	b.Write(payload)
	bundle := b.Bytes()

	file := make([]byte, 0x1000)
	file = append(file, bundle...)
	tailOff := uint64(len(file))
	file = append(file, tail...)
	type sh struct {
		name                   string
		typ                    uint32
		flags, addr, off, size uint64
		link                   uint32
		entsize                uint64
	}
	shs := []sh{{}, {".hip_fatbin", 1, 2, 0x1000, 0x1000, uint64(len(bundle)), 0, 0}}
	extra(func(name string, typ uint32, flags, addr, off, size uint64, link uint32, entsize uint64) {
		if off == ^uint64(0) {
			off = tailOff
		}
		shs = append(shs, sh{name, typ, flags, addr, off, size, link, entsize})
	})
	shs = append(shs, sh{".shstrtab", 3, 0, 0, 0x40, 0, 0, 0})
	var names []byte
	names = append(names, 0)
	nameOff := make([]uint32, len(shs))
	for i, s := range shs {
		if s.name != "" {
			nameOff[i] = uint32(len(names))
			names = append(names, s.name...)
			names = append(names, 0)
		}
	}
	copy(file[0x40:], names)
	shs[len(shs)-1].size = uint64(len(names))
	for len(file)%8 != 0 {
		file = append(file, 0)
	}
	shoff := uint64(len(file))
	for i, s := range shs {
		var h [64]byte
		le.PutUint32(h[0:], nameOff[i])
		le.PutUint32(h[4:], s.typ)
		le.PutUint64(h[8:], s.flags)
		le.PutUint64(h[16:], s.addr)
		le.PutUint64(h[24:], s.off)
		le.PutUint64(h[32:], s.size)
		le.PutUint32(h[40:], s.link)
		le.PutUint64(h[56:], s.entsize)
		file = append(file, h[:]...)
	}
	copy(file, "\x7fELF\x02\x01\x01")
	le.PutUint16(file[16:], 3)  // ET_DYN
	le.PutUint16(file[18:], 62) // x86-64
	le.PutUint32(file[20:], 1)
	le.PutUint64(file[40:], shoff)
	le.PutUint16(file[52:], 64)
	le.PutUint16(file[54:], 56)
	le.PutUint16(file[58:], 64)
	le.PutUint16(file[60:], uint16(len(shs)))
	le.PutUint16(file[62:], uint16(len(shs)-1))
	return file
}
