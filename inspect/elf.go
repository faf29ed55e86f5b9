package inspect

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"
	"strings"

	"github.com/goffload/goffload/magic"
)

// Section names and types that hold device code.
const (
	shtLLVMOffloading = 0x6fff4c0b // SHT_LLVM_OFFLOADING (0x6fff4c03 is SHT_LLVM_ADDRSIG)

	secHIPFatbin  = ".hip_fatbin"
	secHIPSegment = ".hipFatBinSegment"
	secKpackRef   = ".rocm_kpack_ref"

	emAMDGPU = 224
	emCUDA   = 190
)

// offloadingSections are the names OffloadBinaries are kept under:
// clang's new driver, upstream SYCL, Cray's compiler.
var offloadingSections = []string{".llvm.offloading", ".sycl_fatbin", ".cray.llvm.offloading"}

// walkELF lists the device code of an ELF file: a GPU code object itself,
// or a host file's bundle sections, .hip_fatbin, offloading sections and
// HIP wrappers.
func (w *walker) walkELF(r io.ReaderAt, size int64, p place) {
	if off, field, err := elfTables(r, size); err != nil {
		w.fail(p, off, field, err)
		return
	}
	f, err := elf.NewFile(io.NewSectionReader(r, 0, size))
	if err != nil {
		w.fail(p, 0, "ELF header", err)
		return
	}
	if f.Machine == emAMDGPU || f.Machine == emCUDA {
		if p.whole {
			o := &Object{Container: "file", Kind: "", Triple: elfTriple(f)}
			w.leaf(o, r, 0, size, p)
		}
		return
	}
	var fatbins []*elf.Section
	var segments, kpackRefs []*elf.Section
	for i, s := range f.Sections {
		if s.Type == elf.SHT_NULL {
			continue
		}
		if s.Type == elf.SHT_NOBITS {
			// No bytes in the file: a bundle section of this type is an
			// empty entry, as LLVM lists it; any other holds no code.
			if id := strings.TrimPrefix(s.Name, magic.BundleMagic); id != s.Name && id != "" {
				w.leaf(entryObject(id, "bundle section"), r, int64(min(s.Offset, uint64(size))), 0, p)
			}
			continue
		}
		// An empty section still has a place: one past the end of the
		// file is damage (LLVM fails to read its contents too).
		if s.Offset > uint64(size) || s.Size > uint64(size)-s.Offset {
			if claimsDeviceCode(s) {
				w.fail(p, int64(s.Offset), fmt.Sprintf("section %d (%s)", i, s.Name),
					fmt.Errorf("%w: offset %d + size %d past the end of the file (%d bytes)", ErrTruncated, s.Offset, s.Size, size))
			}
			continue
		}
		if s.Size == 0 && !strings.HasPrefix(s.Name, magic.BundleMagic) {
			continue // an empty bundle section is an entry, as LLVM lists it
		}
		off, n := int64(s.Offset), int64(s.Size)
		sr := io.NewSectionReader(r, off, n)
		sp := p.sub(off, s.Name)
		switch {
		case strings.HasPrefix(s.Name, magic.BundleMagic):
			id := strings.TrimPrefix(s.Name, magic.BundleMagic)
			if id == "" {
				continue // LLVM skips a bundle section without an ID
			}
			if k := identifyAt(sr, 0, n); k == magic.CompressedBundle {
				w.walkBundles(sr, n, sp, "")
				continue
			}
			w.leaf(entryObject(id, "bundle section"), r, off, n, p)
		case s.Name == secHIPFatbin || strings.HasPrefix(s.Name, secHIPFatbin+"."):
			fatbins = append(fatbins, s)
			w.walkBundles(sr, n, sp, s.Name)
		case s.Type == shtLLVMOffloading || isOffloadingName(s.Name):
			w.walkOffloadBinaries(sr, n, sp)
		case s.Name == secHIPSegment:
			segments = append(segments, s)
		case s.Name == secKpackRef:
			kpackRefs = append(kpackRefs, s)
		case !ordinarySection(s.Name):
			// Device code under a name we do not know: find it by magic.
			switch identifyAt(sr, 0, n) {
			case magic.OffloadBinary:
				w.walkOffloadBinaries(sr, n, sp)
			case magic.OffloadBundle, magic.CompressedBundle:
				w.walkBundles(sr, n, sp, s.Name)
			}
		}
	}
	for _, s := range segments {
		w.wrappers(f, r, size, s, fatbins, kpackRefs, p)
	}
}

func isOffloadingName(name string) bool {
	for _, n := range offloadingSections {
		if name == n || strings.HasPrefix(name, n+".") {
			return true
		}
	}
	return false
}

// claimsDeviceCode reports whether a section is one the walker would read.
func claimsDeviceCode(s *elf.Section) bool {
	return strings.HasPrefix(s.Name, magic.BundleMagic) || strings.HasPrefix(s.Name, secHIPFatbin) ||
		s.Type == shtLLVMOffloading || isOffloadingName(s.Name) || s.Name == secHIPSegment
}

// ordinarySection reports whether a section name is one a compiler or
// linker uses for host code and data, where no device code is looked for.
func ordinarySection(name string) bool {
	for _, p := range []string{".text", ".data", ".bss", ".debug", ".zdebug", ".rela", ".rel.", ".symtab", ".strtab",
		".shstrtab", ".dynsym", ".dynstr", ".gnu", ".note", ".eh_frame", ".gcc_except_table", ".init", ".fini",
		".ctors", ".dtors", ".got", ".plt", ".dynamic", ".interp", ".comment", ".tbss", ".tdata", ".relr", ".hash",
		".group", ".llvm_addrsig", ".ARM", ".stack", ".sframe", ".rodata"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// elfTriple names a GPU code object's target triple from its header.
func elfTriple(f *elf.File) string {
	switch f.Machine {
	case emAMDGPU:
		switch f.OSABI {
		case 64:
			return "amdgcn-amd-amdhsa"
		case 65:
			return "amdgcn-amd-amdpal"
		case 66:
			return "amdgcn-amd-mesa3d"
		}
		return "amdgcn-amd-unknown"
	case emCUDA:
		return "nvptx64-nvidia-cuda"
	}
	return ""
}

// A Wrapper is one entry of a HIP program's .hipFatBinSegment section,
// which the HIP runtime registers: magic HIPF (a fat binary in
// .hip_fatbin) or HIPK (code kept in a KPAK archive), a version, the
// address of what it points to and a reserved word (for HIPK the
// translation unit's index).
type Wrapper struct {
	// Offset is the wrapper's file offset.
	Offset   int64
	Magic    string
	Version  uint32
	Address  uint64
	Reserved uint64
	// Bundle is the index, in Listing order, of the .hip_fatbin bundle
	// the address points to ("bundle N" in paths), or -1.
	Bundle int
	// Note says what the address points to when it is not a bundle start
	// (relocated later, a kpack reference, outside .hip_fatbin).
	Note string
	// KpackRef is a HIPK wrapper's reference: the kernel name and search
	// paths, as stored (msgpack decoded), or nil.
	KpackRef *KpackRef
}

const (
	wrapperSize = 24
	magicHIPF   = 0x48495046
	magicHIPK   = 0x4B504948
)

// wrappers reads the .hipFatBinSegment wrappers and matches each address to
// a bundle start.
func (w *walker) wrappers(f *elf.File, r io.ReaderAt, size int64, s *elf.Section, fatbins, kpackRefs []*elf.Section, p place) {
	n := int64(s.Size) / wrapperSize
	if n > 1<<20 {
		w.fail(p, int64(s.Offset), s.Name, fmt.Errorf("%w: %d wrappers", ErrLimit, n))
		return
	}
	bo := f.ByteOrder
	addends := relativeAddends(f, r, size, s.Addr, s.Addr+s.Size)
	var buf [wrapperSize]byte
	for i := int64(0); i < n; i++ {
		off := int64(s.Offset) + i*wrapperSize
		if _, err := r.ReadAt(buf[:], off); err != nil {
			w.fail(p, off, fmt.Sprintf("%s wrapper %d", s.Name, i), err)
			return
		}
		wr := Wrapper{Offset: p.at(off), Version: bo.Uint32(buf[4:]), Address: bo.Uint64(buf[8:]),
			Reserved: bo.Uint64(buf[16:]), Bundle: -1}
		if a, ok := addends[s.Addr+uint64(i)*wrapperSize+8]; ok {
			// lld leaves the field 0 and writes the address as the
			// addend of a RELATIVE dynamic relocation; GNU ld writes both.
			wr.Address = a
		}
		m := bo.Uint32(buf[0:])
		switch m {
		case magicHIPF:
			wr.Magic = "HIPF"
		case magicHIPK:
			wr.Magic = "HIPK"
		default:
			wr.Magic = fmt.Sprintf("%#08x", m)
		}
		switch {
		case m == magicHIPK:
			wr.Note = "kpack: code objects live in a KPAK archive"
			wr.KpackRef = w.kpackRef(f, r, size, wr.Address, kpackRefs, p)
		case m != magicHIPF:
			wr.Note = fmt.Sprintf("unknown magic %#08x", m)
		case f.Type == elf.ET_REL:
			wr.Note = "address set by relocation at link time"
		default:
			wr.Bundle, wr.Note = w.bundleAt(wr.Address, fatbins, p.file)
		}
		w.l.Wrappers = append(w.l.Wrappers, wr)
	}
}

// bundleAt finds the bundle starting at virtual address addr.
func (w *walker) bundleAt(addr uint64, fatbins []*elf.Section, file string) (int, string) {
	for _, s := range fatbins {
		if addr < s.Addr || addr >= s.Addr+s.Size {
			continue
		}
		if n, ok := w.bundleStarts[bundleKey{file, int64(s.Offset + (addr - s.Addr))}]; ok {
			return n, ""
		}
		return -1, fmt.Sprintf("points into %s at offset %d, not at a bundle start", s.Name, addr-s.Addr)
	}
	return -1, fmt.Sprintf("address %#x lies outside .hip_fatbin", addr)
}

// Relative relocation types: the loader writes base + addend.
const (
	rX86_64Relative  = 8
	rAArch64Relative = 1027
	rPPC64Relative   = 22
)

// relativeAddends returns, for every RELATIVE or 64-bit absolute dynamic
// relocation whose place lies in [lo, hi), the address it stores there.
func relativeAddends(f *elf.File, r io.ReaderAt, size int64, lo, hi uint64) map[uint64]uint64 {
	out := map[uint64]uint64{}
	if f.Class != elf.ELFCLASS64 || f.Type == elf.ET_REL {
		return out
	}
	var relative, abs64 uint32
	switch f.Machine {
	case elf.EM_X86_64:
		relative, abs64 = rX86_64Relative, uint32(elf.R_X86_64_64)
	case elf.EM_AARCH64:
		relative, abs64 = rAArch64Relative, uint32(elf.R_AARCH64_ABS64)
	case elf.EM_PPC64:
		relative, abs64 = rPPC64Relative, uint32(elf.R_PPC64_ADDR64)
	default:
		return out
	}
	// Symbolic relocations (-fgpu-rdc links: the wrapper names the
	// exported __hip_fatbin_<id> symbol) resolve through .dynsym.
	var dynsyms []elf.Symbol
	dynLoaded := false
	symValue := func(i uint32) (uint64, bool) {
		if !dynLoaded {
			dynsyms, _ = f.DynamicSymbols()
			dynLoaded = true
		}
		if i == 0 || int(i) > len(dynsyms) || dynsyms[i-1].Section == elf.SHN_UNDEF {
			return 0, false
		}
		return dynsyms[i-1].Value, true
	}
	for _, s := range f.Sections {
		if s.Type != elf.SHT_RELA || s.Offset > uint64(size) || s.Size > uint64(size)-s.Offset {
			continue
		}
		sr := io.NewSectionReader(r, int64(s.Offset), int64(s.Size))
		var buf [24 * 256]byte
		for pos := int64(0); pos+24 <= int64(s.Size); {
			n, err := sr.ReadAt(buf[:min(int64(len(buf)), (int64(s.Size)-pos)/24*24)], pos)
			n -= n % 24
			for i := 0; i < n; i += 24 {
				e := buf[i : i+24]
				place, info := f.ByteOrder.Uint64(e), f.ByteOrder.Uint64(e[8:])
				if place < lo || place >= hi {
					continue
				}
				switch uint32(info) {
				case relative:
					out[place] = f.ByteOrder.Uint64(e[16:])
				case abs64:
					if v, ok := symValue(uint32(info >> 32)); ok {
						out[place] = v + f.ByteOrder.Uint64(e[16:])
					}
				}
			}
			if err != nil || n == 0 {
				break
			}
			pos += int64(n)
		}
	}
	return out
}

// elfTables checks, from the ELF header alone, that the program and
// section header tables lie in the file: a file cut short is reported at
// the table it lost, not as an unreadable header.
func elfTables(r io.ReaderAt, size int64) (int64, string, error) {
	var h [64]byte
	n, _ := r.ReadAt(h[:], 0)
	if n < 52 {
		return 0, "ELF header", fmt.Errorf("%w: %d bytes, the header alone needs 52 or 64", ErrTruncated, n)
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if h[5] == 2 {
		bo = binary.BigEndian
	}
	var phoff, shoff uint64
	var phent, phnum, shent, shnum uint16
	phAt, shAt := int64(32), int64(40) // where e_phoff and e_shoff lie
	switch h[4] {
	case 1:
		phAt, shAt = 28, 32
		phoff, shoff = uint64(bo.Uint32(h[28:])), uint64(bo.Uint32(h[32:]))
		phent, phnum, shent, shnum = bo.Uint16(h[42:]), bo.Uint16(h[44:]), bo.Uint16(h[46:]), bo.Uint16(h[48:])
	case 2:
		if n < 64 {
			return 0, "ELF header", fmt.Errorf("%w: %d bytes, the 64-bit header needs 64", ErrTruncated, n)
		}
		phoff, shoff = bo.Uint64(h[32:]), bo.Uint64(h[40:])
		phent, phnum, shent, shnum = bo.Uint16(h[54:]), bo.Uint16(h[56:]), bo.Uint16(h[58:]), bo.Uint16(h[60:])
	default:
		return 0, "", nil // debug/elf says what is wrong
	}
	for _, t := range []struct {
		name     string
		at       int64
		off      uint64
		ent, num uint16
	}{{"ELF header: e_phoff (program header table)", phAt, phoff, phent, phnum}, {"ELF header: e_shoff (section header table)", shAt, shoff, shent, shnum}} {
		if t.num == 0 {
			continue
		}
		end := t.off + uint64(t.ent)*uint64(t.num)
		if t.off > uint64(size) || end > uint64(size) || end < t.off {
			return t.at, t.name, fmt.Errorf("%w: %d entries of %d bytes at offset %d run past the end of the file (%d bytes)", ErrTruncated, t.num, t.ent, t.off, size)
		}
	}
	return 0, "", nil
}
