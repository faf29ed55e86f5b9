// Package objfile is the one reader of ELF and COFF/PE headers and section
// tables under every goffload package: class, byte order, machine, the
// section table and section names, program headers, read lazily over an
// io.ReaderAt. It reads no section contents itself; callers read the
// ranges it gives them.
//
// Its checks are those of LLVM 22's object readers (ELFFile, COFFObjectFile),
// in their order: a file LLVM rejects is rejected here, with an *Error
// whose LLVMMessage is LLVM's text, so the drop-in tools print LLVM's words
// without a reader of their own. Sizes from the file are checked against
// the file size before anything is allocated.
package objfile
