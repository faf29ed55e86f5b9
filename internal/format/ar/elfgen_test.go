package ar

import (
	"bytes"
	"encoding/binary"
	"math/rand"
)

// Test-only builder of small ELF relocatable files with arbitrary symbols.

type genSym struct {
	name        string
	nameOff     int // -1: use name; otherwise a raw st_name
	bind, typ   byte
	other       byte
	shndx       uint16
	value, size uint64
}

type genELF struct {
	is64, be bool
	machine  uint16
	syms     []genSym // without the null symbol
	noSymtab bool
	shndx    bool // add an SHT_SYMTAB_SHNDX section
}

func (g *genELF) bytes() []byte {
	var bo binary.ByteOrder = binary.LittleEndian
	if g.be {
		bo = binary.BigEndian
	}
	ehsize, shentsize, symentsize := 52, 40, 16
	if g.is64 {
		ehsize, shentsize, symentsize = 64, 64, 24
	}
	// Sections: 0 null, 1 .text, 2 .symtab, 3 .strtab, 4 .shstrtab, [5 .symtab_shndx]
	shstr := []byte("\x00.text\x00.symtab\x00.strtab\x00.shstrtab\x00.symtab_shndx\x00")
	str := []byte{0}
	var symtab bytes.Buffer
	put := func(b *bytes.Buffer, v any) { binary.Write(b, bo, v) }
	symtab.Write(make([]byte, symentsize))
	for _, s := range g.syms {
		off := uint32(len(str))
		if s.nameOff >= 0 {
			off = uint32(s.nameOff)
		} else {
			str = append(str, s.name...)
			str = append(str, 0)
		}
		info := s.bind<<4 | s.typ&0xf
		if g.is64 {
			put(&symtab, off)
			symtab.WriteByte(info)
			symtab.WriteByte(s.other)
			put(&symtab, s.shndx)
			put(&symtab, s.value)
			put(&symtab, s.size)
		} else {
			put(&symtab, off)
			put(&symtab, uint32(s.value))
			put(&symtab, uint32(s.size))
			symtab.WriteByte(info)
			symtab.WriteByte(s.other)
			put(&symtab, s.shndx)
		}
	}
	var shndxData bytes.Buffer
	if g.shndx {
		for i := 0; i <= len(g.syms); i++ {
			put(&shndxData, uint32(1))
		}
	}
	text := []byte{0xc3, 0, 0, 0}
	var out bytes.Buffer
	out.Write(make([]byte, ehsize))
	align := func() {
		for out.Len()%8 != 0 {
			out.WriteByte(0)
		}
	}
	textOff := out.Len()
	out.Write(text)
	align()
	symOff := out.Len()
	out.Write(symtab.Bytes())
	align()
	strOff := out.Len()
	out.Write(str)
	align()
	shstrOff := out.Len()
	out.Write(shstr)
	align()
	shndxOff := out.Len()
	out.Write(shndxData.Bytes())
	align()
	shoff := out.Len()
	type sec struct {
		name, typ      uint32
		flags          uint64
		off, size      int
		link, info     uint32
		align, entsize uint64
	}
	symType := uint32(2)
	if g.noSymtab {
		symType = 1 // PROGBITS
	}
	secs := []sec{{},
		{name: 1, typ: 1, flags: 6, off: textOff, size: len(text), align: 4},
		{name: 7, typ: symType, off: symOff, size: symtab.Len(), link: 3, info: 1, align: 8, entsize: uint64(symentsize)},
		{name: 15, typ: 3, off: strOff, size: len(str), align: 1},
		{name: 23, typ: 3, off: shstrOff, size: len(shstr), align: 1},
	}
	if g.shndx {
		secs = append(secs, sec{name: 33, typ: 18, off: shndxOff, size: shndxData.Len(), link: 2, align: 4, entsize: 4})
	}
	for _, s := range secs {
		if g.is64 {
			put(&out, s.name)
			put(&out, s.typ)
			put(&out, s.flags)
			put(&out, uint64(0))
			put(&out, uint64(s.off))
			put(&out, uint64(s.size))
			put(&out, s.link)
			put(&out, s.info)
			put(&out, s.align)
			put(&out, s.entsize)
		} else {
			put(&out, s.name)
			put(&out, s.typ)
			put(&out, uint32(s.flags))
			put(&out, uint32(0))
			put(&out, uint32(s.off))
			put(&out, uint32(s.size))
			put(&out, s.link)
			put(&out, s.info)
			put(&out, uint32(s.align))
			put(&out, uint32(s.entsize))
		}
	}
	b := out.Bytes()
	copy(b, "\x7fELF")
	b[4] = 1
	if g.is64 {
		b[4] = 2
	}
	b[5] = 1
	if g.be {
		b[5] = 2
	}
	b[6] = 1
	bo.PutUint16(b[16:], 1) // ET_REL
	bo.PutUint16(b[18:], g.machine)
	bo.PutUint32(b[20:], 1)
	if g.is64 {
		bo.PutUint64(b[40:], uint64(shoff))
		bo.PutUint16(b[52:], uint16(ehsize))
		bo.PutUint16(b[58:], uint16(shentsize))
		bo.PutUint16(b[60:], uint16(len(secs)))
		bo.PutUint16(b[62:], 4)
	} else {
		bo.PutUint32(b[32:], uint32(shoff))
		bo.PutUint16(b[40:], uint16(ehsize))
		bo.PutUint16(b[46:], uint16(shentsize))
		bo.PutUint16(b[48:], uint16(len(secs)))
		bo.PutUint16(b[50:], 4)
	}
	return b
}

var genMachines = []uint16{62, 3, 40, 183, 243, 252, 8, 20, 21, 224, 258}

var genNames = []string{"f", "g_var", "$d", "$d.1", "$x", "$a", "$t", "$t.foo", ".Lx", ".L", "", "x$d", "__start", "a.b", "very_long_symbol_name_for_the_table", "$", "L"}

// randomELF makes a random small ELF with symbols of every binding, type,
// visibility and special section index.
func randomELF(rng *rand.Rand) *genELF {
	g := &genELF{is64: rng.Intn(2) == 0, be: rng.Intn(2) == 0, machine: genMachines[rng.Intn(len(genMachines))]}
	g.shndx = rng.Intn(3) == 0
	n := rng.Intn(12)
	shndxes := []uint16{0, 1, 1, 1, 2, 0xfff1, 0xfff2, 0xffff, 0xff00, 0xff1f, 0xff20, 0xff3f, 40}
	for i := 0; i < n; i++ {
		s := genSym{name: genNames[rng.Intn(len(genNames))], nameOff: -1}
		if rng.Intn(2) == 0 {
			s.name += string(rune('a' + rng.Intn(26)))
		}
		s.bind = byte(rng.Intn(16))
		if rng.Intn(2) == 0 {
			s.bind = byte(rng.Intn(3)) // LOCAL, GLOBAL, WEAK more often
		}
		s.typ = byte(rng.Intn(16))
		s.other = byte(rng.Intn(4))
		s.shndx = shndxes[rng.Intn(len(shndxes))]
		s.value = uint64(rng.Intn(3))
		g.syms = append(g.syms, s)
	}
	return g
}
