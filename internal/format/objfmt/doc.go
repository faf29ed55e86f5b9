// Package objfmt reads and writes clang-offload-bundler's object format
// (-type=o): a host object file whose bundles are extra sections named
// "__CLANG_OFFLOAD_BUNDLE__<bundle id>".
//
// For ELF (32 and 64 bit, either byte order, relocatable, executable and
// shared objects) the package does itself the two edits that LLVM 22 delegates
// to llvm-objcopy, and lays the file out exactly as llvm-objcopy 22 does, so
// that the output is byte-identical:
//
//   - AddSections is `llvm-objcopy --add-section=NAME=FILE
//     --set-section-flags=NAME=readonly,exclude ... -- in out`;
//   - StripBundles is `llvm-objcopy --regex
//     --remove-section=__CLANG_OFFLOAD_BUNDLE__.* -- in out`.
//
// What llvm-objcopy does, as learnt by experiment (see writer.go, symbols.go
// and layout.go): sections outside segments are laid out again in the order of
// their original file offsets, each at the next multiple of its alignment, with
// zero padding; added sections follow in the order given; the section header
// table comes last, aligned to the word size. Segment contents are kept in
// place, gaps between segments become zeros. The section-name and symbol-name
// string tables are rebuilt with LLVM's StringTableBuilder ordering (strings
// sorted by their reversed bytes, descending, and suffixes merged into the
// string before them). Symbols defined in removed sections are dropped,
// relocation sections of removed sections are removed, and every section and
// symbol index is renumbered in headers, symbols, relocations and SHT_GROUP
// contents. When symbols move (non-local symbols before local ones) or are
// dropped, .llvm_addrsig keeps its contents and gets sh_link 0, as llvm-objcopy
// leaves it. A non-allocated SHT_STRTAB section that is neither the
// section-name nor the symbol-name table is emptied to one NUL byte.
//
// Other object formats (COFF and PE, Mach-O, Wasm, XCOFF, DXContainer) are
// recognised by IsObject; for them the bundler runs the real llvm-objcopy.
// Finding and running it, its temporary files and its messages belong to
// the command line (internal/tool/bundler), not to this package.
//
// Payloads are streamed from their io.ReaderAt to the io.Writer; only headers,
// string tables and the symbol table of the host are held in memory.
//
// Errors from AddSections and StripBundles stand for inputs llvm-objcopy
// rejects too (as far as tested), or that this writer does not support:
// sections inside segments whose contents would change, symbol renumbering
// in MIPS64 relocations, and ELF files without a section header table. A
// *LayoutError is an output that alignment padding would grow far past its
// input; it gives the size llvm-objcopy would try to allocate for it.
package objfmt
