package inspect

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/goffload/goffload/magic"
)

// amdgpuMach maps EF_AMDGPU_MACH (the low byte of an AMDGPU code object's
// e_flags) to the processor name, as clang 22 writes it (checked by
// compiling for every processor LLVM 22 knows; gfx940 and gfx941 are
// older LLVMs' and still found in shipped libraries). A number not here
// is shown as found, never rejected.
var amdgpuMach = map[uint32]string{
	0x20: "gfx600", 0x21: "gfx601", 0x22: "gfx700", 0x23: "gfx701", 0x24: "gfx702",
	0x25: "gfx703", 0x26: "gfx704", 0x28: "gfx801", 0x29: "gfx802", 0x2a: "gfx803",
	0x2b: "gfx810", 0x2c: "gfx900", 0x2d: "gfx902", 0x2e: "gfx904", 0x2f: "gfx906",
	0x30: "gfx908", 0x31: "gfx909", 0x32: "gfx90c", 0x33: "gfx1010", 0x34: "gfx1011",
	0x35: "gfx1012", 0x36: "gfx1030", 0x37: "gfx1031", 0x38: "gfx1032", 0x39: "gfx1033",
	0x3a: "gfx602", 0x3b: "gfx705", 0x3c: "gfx805", 0x3d: "gfx1035", 0x3e: "gfx1034",
	0x3f: "gfx90a", 0x40: "gfx940", 0x41: "gfx1100", 0x42: "gfx1013", 0x43: "gfx1150",
	0x44: "gfx1103", 0x45: "gfx1036", 0x46: "gfx1101", 0x47: "gfx1102", 0x48: "gfx1200",
	0x49: "gfx1250", 0x4a: "gfx1151", 0x4b: "gfx941", 0x4c: "gfx942", 0x4e: "gfx1201",
	0x4f: "gfx950", 0x51: "gfx9-generic", 0x52: "gfx10-1-generic", 0x53: "gfx10-3-generic",
	0x54: "gfx11-generic", 0x55: "gfx1152", 0x58: "gfx1153", 0x59: "gfx12-generic",
	0x5a: "gfx1251", 0x5f: "gfx9-4-generic",
}

// AMDGPU e_flags fields (code object v4 and later).
const (
	efMach        = 0x0ff
	efXnackV4     = 0x300
	efSramEccV4   = 0xc00
	efXnackV3     = 0x100
	efSramEccV3   = 0x200
	osabiHSA      = 64
	maxHeaderScan = 4096
)

// ProcessorName returns the processor an AMDGPU code object's e_flags name
// ("gfx90a"), or "mach 0x..." for a number LLVM 22 does not know.
func ProcessorName(flags uint32) string {
	if n, ok := amdgpuMach[flags&efMach]; ok {
		return n
	}
	return fmt.Sprintf("mach %#x", flags&efMach)
}

var ptxTarget = regexp.MustCompile(`(?m)^\s*\.target\s+(sm_[0-9a-z]+)`)

// ReadCodeObject reads what a code object's own header says (an AMDGPU or
// CUDA ELF, bitcode, SPIR-V, PTX text). It never fails:
// what cannot be read is left empty.
func ReadCodeObject(r io.ReaderAt, size int64) *CodeObject {
	c := &CodeObject{Format: "unknown", Kernels: -1}
	h := head(r, 0, size, 64)
	switch k := magic.Identify(h); {
	case k.IsELF():
		c.Format = "ELF"
		readELFCode(c, r, size)
	case k == magic.Bitcode:
		c.Format = "LLVM bitcode"
	case k == magic.SPIRV:
		c.Format = "SPIR-V"
	case k == magic.OffloadBinary:
		c.Format = "OffloadBinary"
	default:
		t := head(r, 0, size, maxHeaderScan)
		if m := ptxTarget.FindSubmatch(t); m != nil && bytes.Contains(t, []byte(".version")) {
			c.Format, c.Machine, c.Processor = "PTX", "CUDA", string(m[1])
		} else if size == 0 {
			c.Format = "empty"
		} else if isText(t) {
			c.Format = "text"
		}
	}
	return c
}

func isText(b []byte) bool {
	for _, c := range b {
		if c < 0x09 || c > 0x0d && c < 0x20 && c != 0x1b {
			return false
		}
	}
	return len(b) > 0
}

func readELFCode(c *CodeObject, r io.ReaderAt, size int64) {
	if readAMDGPU(c, r, size) {
		return
	}
	readELFCodeSlow(c, r, size)
}

// readELFCodeSlow reads any ELF code object through debug/elf.
func readELFCodeSlow(c *CodeObject, r io.ReaderAt, size int64) {
	f, err := elf.NewFile(io.NewSectionReader(r, 0, size))
	if err != nil {
		return
	}
	c.Machine = machineName(f.Machine)
	switch f.Machine {
	case emAMDGPU:
		var flags uint32
		var raw [4]byte
		off := int64(36)
		if f.Class == elf.ELFCLASS32 {
			off = 36
		} else {
			off = 48
		}
		if _, err := r.ReadAt(raw[:], off); err == nil {
			flags = f.ByteOrder.Uint32(raw[:])
		}
		c.Processor = ProcessorName(flags)
		if f.OSABI == osabiHSA {
			c.CodeObjectVersion = int(f.ABIVersion) + 2
		}
		if c.CodeObjectVersion >= 4 {
			c.Xnack = modeV4(flags&efXnackV4, 0x100)
			c.SRAMECC = modeV4(flags&efSramEccV4, 0x400)
		} else if c.CodeObjectVersion == 3 {
			c.Xnack, c.SRAMECC = onOff(flags&efXnackV3 != 0), onOff(flags&efSramEccV3 != 0)
		}
		c.Kernels = countKernels(f)
	case emCUDA:
		var raw [4]byte
		if _, err := r.ReadAt(raw[:], 48); err == nil {
			flags := f.ByteOrder.Uint32(raw[:])
			sm := flags & 0xff
			if sm == 0 {
				sm = flags >> 8 & 0xff
			}
			c.Processor = fmt.Sprintf("sm_%d", sm)
		}
		c.Kernels = countCUDAKernels(f)
	}
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// modeV4 decodes a two-bit feature field whose lowest bit is unit.
func modeV4(v, unit uint32) string {
	switch v / unit {
	case 0:
		return "unsupported"
	case 1:
		return "any"
	case 2:
		return "off"
	}
	return "on"
}

// readAMDGPU reads an ELF64 little-endian AMDGPU code object's facts with
// two reads of its headers and one pass over its symbols, without building
// debug/elf's tables: listing a library of thousands of code objects
// spends its time here. It reports false for anything else (the general
// reader then runs).
func readAMDGPU(c *CodeObject, r io.ReaderAt, size int64) bool {
	if size < 64 {
		return false
	}
	// A small code object whole, else its first 4 KiB: the ELF header and
	// maybe the tables read below (a larger read costs more than it saves).
	hp := heads.Get().(*[]byte)
	defer heads.Put(hp)
	n := min(int64(len(*hp)), size)
	if size > int64(len(*hp)) {
		n = 4 << 10 // a larger object: its header, and maybe its tables
	}
	head := (*hp)[:n]
	if n, err := r.ReadAt(head, 0); n < 64 || err != nil && err != io.EOF {
		return false
	} else {
		head = head[:n]
	}
	eh := head[:64]
	le := binary.LittleEndian
	if eh[4] != 2 || eh[5] != 1 || le.Uint16(eh[18:]) != uint16(emAMDGPU) || le.Uint16(eh[58:]) != 64 {
		return false
	}
	flags := le.Uint32(eh[48:])
	c.Machine = "AMDGPU"
	c.Processor = ProcessorName(flags)
	if eh[7] == osabiHSA {
		c.CodeObjectVersion = int(eh[8]) + 2
	}
	if c.CodeObjectVersion >= 4 {
		c.Xnack = modeV4(flags&efXnackV4, 0x100)
		c.SRAMECC = modeV4(flags&efSramEccV4, 0x400)
	} else if c.CodeObjectVersion == 3 {
		c.Xnack, c.SRAMECC = onOff(flags&efXnackV3 != 0), onOff(flags&efSramEccV3 != 0)
	}
	// As countKernels: .dynsym's, else .symtab's when it says more; -1
	// when the section headers cannot be read (only the ELF header was).
	c.Kernels = -1
	shoff, shnum := le.Uint64(eh[40:]), uint64(le.Uint16(eh[60:]))
	if shnum == 0 || shoff > uint64(size) || shnum*64 > uint64(size)-shoff {
		return true
	}
	sh, ok := within(head, shoff, shnum*64)
	if !ok {
		sh = make([]byte, shnum*64)
		if _, err := r.ReadAt(sh, int64(shoff)); err != nil {
			return true
		}
	}
	c.Kernels = countKDRaw(r, size, head, sh, uint32(elf.SHT_DYNSYM))
	if c.Kernels <= 0 {
		if m := countKDRaw(r, size, head, sh, uint32(elf.SHT_SYMTAB)); m >= 0 {
			c.Kernels = m
		}
	}
	return true
}

// countKDRaw is countKD over raw section headers: the "*.kd" symbols of
// the first table of type typ; -1 when there is none or it cannot be read.
func countKDRaw(r io.ReaderAt, size int64, head, sh []byte, typ uint32) int {
	le := binary.LittleEndian
	for i := 0; i+64 <= len(sh); i += 64 {
		if le.Uint32(sh[i+4:]) != typ {
			continue
		}
		off, n, link := le.Uint64(sh[i+24:]), le.Uint64(sh[i+32:]), uint64(le.Uint32(sh[i+40:]))
		if link == 0 || (link+1)*64 > uint64(len(sh)) || off > uint64(size) || n > uint64(size)-off {
			return -1
		}
		s := sh[link*64:]
		soff, sn := le.Uint64(s[24:]), le.Uint64(s[32:])
		if le.Uint32(s[4:]) != uint32(elf.SHT_STRTAB) || sn > maxStrtab || soff > uint64(size) || sn > uint64(size)-soff {
			return -1
		}
		names, ok1 := within(head, soff, sn)
		tab, ok2 := within(head, off, n)
		if ok1 && ok2 {
			return countKDIn(tab, names, 24, le)
		}
		bp := scratch.Get().(*[]byte)
		defer scratch.Put(bp)
		if uint64(cap(*bp)) < sn+n {
			*bp = make([]byte, sn+n)
		}
		if !ok1 {
			names = (*bp)[:sn]
			if _, err := r.ReadAt(names, int64(soff)); err != nil {
				return -1
			}
		}
		if n > 1<<20 { // a large table: streamed
			return countNames(io.NewSectionReader(r, int64(off), int64(n)), names, 24, le)
		}
		if !ok2 {
			tab = (*bp)[sn : sn+n]
			if _, err := r.ReadAt(tab, int64(off)); err != nil {
				return -1
			}
		}
		return countKDIn(tab, names, 24, le)
	}
	return -1
}

// heads holds the 16 KiB buffers readAMDGPU reads a code object's start
// into.
var heads = sync.Pool{New: func() any { b := make([]byte, 16<<10); return &b }}

// within returns b[off:off+n] when it lies in b.
func within(b []byte, off, n uint64) ([]byte, bool) {
	if off > uint64(len(b)) || n > uint64(len(b))-off {
		return nil, false
	}
	return b[off : off+n], true
}

// scratch holds the buffers countKDRaw reads string and symbol tables
// into, reused across code objects.
var scratch = sync.Pool{New: func() any { return new([]byte) }}

// countNames counts the symbols of a symbol table (entries of entry bytes,
// the name's offset first) whose names in names end in ".kd", streaming it.
func countNames(tab io.Reader, names []byte, entry int, bo binary.ByteOrder) int {
	buf := make([]byte, 1024*entry)
	n := 0
	for {
		k, err := io.ReadFull(tab, buf)
		n += countKDIn(buf[:k], names, entry, bo)
		if err != nil {
			return n
		}
	}
}

// countKDIn is countNames over a table held in memory.
func countKDIn(tab, names []byte, entry int, bo binary.ByteOrder) int {
	n := 0
	for off := 0; off+entry <= len(tab); off += entry {
		name := int(bo.Uint32(tab[off:]))
		if name <= 0 || name >= len(names) {
			continue
		}
		end := bytes.IndexByte(names[name:], 0)
		if end >= 3 && string(names[name+end-3:name+end]) == ".kd" {
			n++
		}
	}
	return n
}

// countKernels counts kernel descriptors: symbols whose names end in ".kd".
func countKernels(f *elf.File) int {
	n := countKD(f, elf.SHT_DYNSYM)
	if n <= 0 {
		if m := countKD(f, elf.SHT_SYMTAB); m >= 0 {
			return m
		}
	}
	return n
}

// maxStrtab bounds the string table countKD reads to count kernels.
const maxStrtab = 64 << 20

// countKD counts the symbols named "*.kd" (kernel descriptors) of the
// first symbol table of type typ, streaming the table: a Tensile library's
// 14,000 kernels cost its string table's bytes, not a Go string each.
// -1 when there is no such table or it cannot be read.
func countKD(f *elf.File, typ elf.SectionType) int {
	var tab *elf.Section
	for _, s := range f.Sections {
		if s.Type == typ {
			tab = s
			break
		}
	}
	if tab == nil || int(tab.Link) >= len(f.Sections) || tab.Link == 0 {
		return -1
	}
	strs := f.Sections[tab.Link]
	if strs.Size > maxStrtab || strs.Type != elf.SHT_STRTAB {
		return -1
	}
	names, err := strs.Data()
	if err != nil {
		return -1
	}
	entry := 24
	if f.Class == elf.ELFCLASS32 {
		entry = 16
	}
	return countNames(tab.Open(), names, entry, f.ByteOrder)
}

// countCUDAKernels counts .text.<kernel> sections of a cubin.
func countCUDAKernels(f *elf.File) int {
	n := 0
	for _, s := range f.Sections {
		if strings.HasPrefix(s.Name, ".text.") {
			n++
		}
	}
	return n
}

func machineName(m elf.Machine) string {
	switch m {
	case emAMDGPU:
		return "AMDGPU"
	case emCUDA:
		return "CUDA"
	case elf.EM_X86_64:
		return "x86-64"
	case elf.EM_AARCH64:
		return "AArch64"
	case elf.EM_386:
		return "i386"
	case elf.EM_PPC64:
		return "PowerPC64"
	}
	return strings.TrimPrefix(m.String(), "EM_")
}
