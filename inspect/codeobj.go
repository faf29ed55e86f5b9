package inspect

import (
	"bytes"
	"debug/elf"
	"fmt"
	"io"
	"regexp"
	"strings"

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
	buf := make([]byte, 4096*entry)
	r := tab.Open()
	n := 0
	for {
		k, err := io.ReadFull(r, buf)
		for off := 0; off+entry <= k; off += entry {
			name := int(f.ByteOrder.Uint32(buf[off:]))
			if name <= 0 || name >= len(names) {
				continue
			}
			end := bytes.IndexByte(names[name:], 0)
			if end >= 3 && string(names[name+end-3:name+end]) == ".kd" {
				n++
			}
		}
		if err != nil {
			break
		}
	}
	return n
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
