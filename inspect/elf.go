package inspect

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/goffload/goffload/internal/format/magic"
	"github.com/goffload/goffload/internal/hipfatbin"
	"github.com/goffload/goffload/internal/objfile"
)

// Section names and types that hold device code.
const (
	secHIPFatbin  = ".hip_fatbin"
	secHIPSegment = ".hipFatBinSegment"
	secKpackRef   = ".rocm_kpack_ref"

	emAMDGPU = 224
	emCUDA   = 190
	etRel    = 1
)

// offloadingSections are the names OffloadBinaries are kept under:
// clang's new driver, upstream SYCL, Cray's compiler.
var offloadingSections = []string{".llvm.offloading", ".sycl_fatbin", ".cray.llvm.offloading"}

// walkELF lists the device code of an ELF file: a GPU code object itself,
// or a host file's bundle sections, .hip_fatbin, offloading sections and
// HIP wrappers.
func (w *walker) walkELF(r io.ReaderAt, size int64, p place) {
	f, err := objfile.NewELF(r, size)
	if err != nil {
		w.failLayer(p, err)
		return
	}
	if f.Machine == emAMDGPU || f.Machine == emCUDA {
		if p.whole {
			o := &Object{Container: "file", Kind: "", Triple: elfTriple(f)}
			w.leaf(o, r, 0, size, p)
		}
		return
	}
	if _, err := f.Progs(); err != nil {
		w.failLayer(p, err)
		return
	}
	secs, err := f.Sections()
	if err != nil {
		w.failLayer(p, err)
		return
	}
	bad, err := f.NameSections(secs)
	if err != nil {
		w.failLayer(p, err)
		return
	}
	if bad >= 0 {
		// Sections without a readable name are not looked into; the
		// others still are.
		w.failLayer(p, f.NameError(secs, bad))
	}
	e := &elfFile{ELF: f, secs: secs}
	var fatbins, segments, kpackRefs []*objfile.Section
	for i := range secs {
		s := &secs[i]
		if s.Type == objfile.SHTNull {
			continue
		}
		if s.Type == objfile.SHTNobits {
			// No bytes in the file: a bundle section of this type is an
			// empty entry, as LLVM lists it; any other holds no code.
			if id := strings.TrimPrefix(s.Name, magic.BundleMagic); id != s.Name && id != "" {
				w.leaf(entryObject(id, "bundle section"), r, int64(min(s.Offset, uint64(size))), 0, p)
			}
			continue
		}
		// An empty section still has a place: one past the end of the
		// file is damage (LLVM fails to read its contents too).
		off, n, err := f.Contents(s)
		if err != nil {
			if claimsDeviceCode(s) {
				w.fail(p, int64(s.Offset), fmt.Sprintf("section %d (%s)", i, s.Name),
					fmt.Errorf("%w: offset %d + size %d past the end of the file (%d bytes)", ErrTruncated, s.Offset, s.Size, size))
			}
			continue
		}
		if s.Size == 0 && !strings.HasPrefix(s.Name, magic.BundleMagic) {
			continue // an empty bundle section is an entry, as LLVM lists it
		}
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
		case s.Type == objfile.SHTLLVMOffloading || isOffloadingName(s.Name):
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
		w.wrappers(e, r, size, s, fatbins, kpackRefs, p)
	}
}

// elfFile is a host ELF file as walkELF read it: its header and its named
// sections.
type elfFile struct {
	*objfile.ELF
	secs []objfile.Section
}

// failLayer reports an error of the section layer at the offset and field it
// names (which Error then says once).
func (w *walker) failLayer(p place, err error) {
	var e *objfile.Error
	if errors.As(err, &e) {
		w.fail(p, e.Offset, e.Field, &bareError{e.Msg, e})
		return
	}
	w.fail(p, 0, "header", err)
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
func claimsDeviceCode(s *objfile.Section) bool {
	return strings.HasPrefix(s.Name, magic.BundleMagic) || strings.HasPrefix(s.Name, secHIPFatbin) ||
		s.Type == objfile.SHTLLVMOffloading || isOffloadingName(s.Name) || s.Name == secHIPSegment
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
func elfTriple(f *objfile.ELF) string {
	switch f.Machine {
	case emAMDGPU:
		switch f.Ident[7] { // EI_OSABI
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

// wrappers reads the .hipFatBinSegment wrappers through package hipfatbin
// and matches each address to a bundle start.
func (w *walker) wrappers(f *elfFile, r io.ReaderAt, size int64, s *objfile.Section, fatbins, kpackRefs []*objfile.Section, p place) {
	ws, err := hipfatbin.Wrappers(f.ELF, f.secs, s)
	if err != nil {
		var e *objfile.Error
		if errors.As(err, &e) {
			w.fail(p, e.Offset, s.Name+": "+e.Field, &bareError{e.Msg, e})
		} else {
			w.fail(p, int64(s.Offset), s.Name, err)
		}
		return
	}
	for _, hw := range ws {
		wr := Wrapper{Offset: p.at(hw.Offset), Version: hw.Version, Address: hw.Address, Reserved: hw.Reserved, Bundle: -1}
		switch hw.Magic {
		case hipfatbin.MagicHIPF:
			wr.Magic = "HIPF"
		case hipfatbin.MagicHIPK:
			wr.Magic = "HIPK"
		default:
			wr.Magic = fmt.Sprintf("%#08x", hw.Magic)
		}
		switch {
		case hw.Magic == hipfatbin.MagicHIPK:
			wr.Note = "kpack: code objects live in a KPAK archive"
			wr.KpackRef = w.kpackRef(f, r, size, wr.Address, kpackRefs, p)
		case hw.Magic != hipfatbin.MagicHIPF:
			wr.Note = fmt.Sprintf("unknown magic %#08x", hw.Magic)
		case f.Type == etRel:
			wr.Note = "address set by relocation at link time"
		default:
			wr.Bundle, wr.Note = w.bundleAt(wr.Address, fatbins, p.file)
		}
		w.l.Wrappers = append(w.l.Wrappers, wr)
	}
}

// bundleAt finds the bundle starting at virtual address addr.
func (w *walker) bundleAt(addr uint64, fatbins []*objfile.Section, file string) (int, string) {
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
