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

	"github.com/goffload/goffload/internal/format/magic"
	"github.com/goffload/goffload/internal/objfile"
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

// readELFCode reads an ELF code object's facts through package objfile.
// A small code object is read whole first, a larger one's first 4 KiB, and
// the headers and tables are taken from that when they lie in it: listing
// a library of thousands of code objects spends its time here.
func readELFCode(c *CodeObject, r io.ReaderAt, size int64) {
	st := states.Get().(*codeState)
	defer func() {
		st.hr.r, st.elf = nil, objfile.ELF{} // keep no reader alive in the pool
		states.Put(st)
	}()
	n := min(int64(len(st.head)), size)
	if size > int64(len(st.head)) {
		n = 4 << 10 // a larger object: its header, and maybe its tables
	}
	k, err := r.ReadAt(st.head[:n], 0)
	if k < 16 || err != nil && err != io.EOF {
		return
	}
	cr := &st.hr
	cr.head, cr.r = st.head[:k], r
	f := &st.elf
	if f.Init(cr, size) != nil {
		return
	}
	c.Machine = machineName(f.Machine)
	switch f.Machine {
	case emAMDGPU:
		flags := f.Flags
		c.Processor = ProcessorName(flags)
		if f.Ident[7] == osabiHSA {
			c.CodeObjectVersion = int(f.Ident[8]) + 2
		}
		if c.CodeObjectVersion >= 4 {
			c.Xnack = modeV4(flags&efXnackV4, 0x100)
			c.SRAMECC = modeV4(flags&efSramEccV4, 0x400)
		} else if c.CodeObjectVersion == 3 {
			c.Xnack, c.SRAMECC = onOff(flags&efXnackV3 != 0), onOff(flags&efSramEccV3 != 0)
		}
		c.Kernels = countKernels(f, cr)
	case emCUDA:
		sm := f.Flags & 0xff
		if sm == 0 {
			sm = f.Flags >> 8 & 0xff
		}
		c.Processor = fmt.Sprintf("sm_%d", sm)
		c.Kernels = countCUDAKernels(f)
	}
}

// headReader is an io.ReaderAt that answers from head, the first bytes of
// r, when it can.
type headReader struct {
	head []byte
	r    io.ReaderAt
}

func (h *headReader) ReadAt(b []byte, off int64) (int, error) {
	if off >= 0 && off+int64(len(b)) <= int64(len(h.head)) {
		return copy(b, h.head[off:]), nil
	}
	return h.r.ReadAt(b, off)
}

// View returns the bytes at off, n long, when they lie in head (an
// objfile.Viewer).
func (h *headReader) View(off, n int64) ([]byte, bool) {
	if off < 0 || off > int64(len(h.head)) || n > int64(len(h.head))-off {
		return nil, false
	}
	return h.head[off : off+n], true
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

// codeState is what reading one code object's facts needs: a 16 KiB
// buffer for its start, the reader over it and the ELF header, reused
// across code objects (a library holds thousands).
type codeState struct {
	head []byte
	hr   headReader
	elf  objfile.ELF
}

var states = sync.Pool{New: func() any { return &codeState{head: make([]byte, 16<<10)} }}

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

// countKernels counts kernel descriptors: symbols whose names end in
// ".kd", in .dynsym, else in .symtab when it says more; -1 when the
// section headers cannot be read.
func countKernels(f *objfile.ELF, cr *headReader) int {
	if _, err := f.NumSections(); err != nil {
		return -1
	}
	n := countKD(f, cr, objfile.SHTDynsym)
	if n <= 0 {
		if m := countKD(f, cr, objfile.SHTSymtab); m >= 0 {
			return m
		}
	}
	return n
}

// maxStrtab bounds the string table countKD reads to count kernels.
const maxStrtab = 64 << 20

// countKD counts the symbols named "*.kd" (kernel descriptors) of the
// first symbol table of type typ, streaming a large table: a Tensile
// library's 14,000 kernels cost its string table's bytes, not a Go string
// each. -1 when there is no such table or it cannot be read.
func countKD(f *objfile.ELF, cr *headReader, typ uint32) int {
	tab, ok, _ := f.FirstOfType(typ)
	nsec, _ := f.NumSections()
	if !ok || tab.Link == 0 || int(tab.Link) >= nsec {
		return -1
	}
	strs := f.Section(int(tab.Link))
	if strs.Type != objfile.SHTStrtab || strs.Size > maxStrtab {
		return -1
	}
	soff, sn, err1 := f.Contents(&strs)
	off, n, err2 := f.Contents(&tab)
	if err1 != nil || err2 != nil {
		return -1
	}
	entry := 24
	if !f.Is64 {
		entry = 16
	}
	names, ok1 := cr.View(soff, sn)
	syms, ok2 := cr.View(off, n)
	if ok1 && ok2 {
		return countKDIn(syms, names, entry, f.ByteOrder)
	}
	bp := scratch.Get().(*[]byte)
	defer scratch.Put(bp)
	if int64(cap(*bp)) < sn+min(n, 1<<20) {
		*bp = make([]byte, sn+min(n, 1<<20))
	}
	if !ok1 {
		names = (*bp)[:sn]
		if _, err := cr.ReadAt(names, soff); err != nil {
			return -1
		}
	}
	if n > 1<<20 { // a large table: streamed
		return countNames(io.NewSectionReader(cr, off, n), names, entry, f.ByteOrder)
	}
	if !ok2 {
		syms = (*bp)[sn : sn+n]
		if _, err := cr.ReadAt(syms, off); err != nil {
			return -1
		}
	}
	return countKDIn(syms, names, entry, f.ByteOrder)
}

// countCUDAKernels counts .text.<kernel> sections of a cubin.
func countCUDAKernels(f *objfile.ELF) int {
	secs, err := f.Sections()
	if err != nil {
		return -1
	}
	if _, err := f.NameSections(secs); err != nil {
		return -1
	}
	n := 0
	for _, s := range secs {
		if strings.HasPrefix(s.Name, ".text.") {
			n++
		}
	}
	return n
}

func machineName(m uint16) string {
	switch elf.Machine(m) {
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
	return strings.TrimPrefix(elf.Machine(m).String(), "EM_")
}
