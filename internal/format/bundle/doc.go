// Package bundle is the implementation under the public package bundle
// (github.com/goffload/goffload/bundle), with the steps clang-offload-bundler's
// emulation needs one by one. It reads and writes offload bundles whatever
// their format: binary bundles (package binfmt), text bundles
// (textfmt), fat objects (objfmt) and compressed bundles, CCOBs (compress),
// holding any of them.
//
// Open reads a bundle over an io.ReaderAt, inflating a CCOB first (into
// memory, or into storage the caller supplies: Options.Scratch), and
// Bundle.Entries returns its entries in the order clang-offload-bundler 22
// -list prints them: file order for text bundles, section order for fat
// objects, LLVM's StringMap order for binary bundles. Each Entry has its
// bundle ID, parsed (Kind, Triple, TargetID, Processor), and opens as an
// io.SectionReader. Bundle.Select picks the entry a GPU would load, by the
// one target rule of package targetid (targetid.Target.Choose). Write writes a bundle of any format from Sources of one shape:
// ID, io.ReaderAt, size.
//
// The steps Open takes are there for callers that need them one by one, as
// goffload's clang-offload-bundler does to report each failure in LLVM's
// words: Inflate (a CCOB, or several back to back), Read (one uncompressed
// container), Inflated.Bundle, and Walker, which visits entries as LLVM's
// unbundler does.
//
// OffloadBinaries (magic 0x10FF10AD, the new offload driver's container)
// are not offload bundles, but Open lists their images as entries too when
// no type is given, under the bundle ID their metadata makes
// ("hip-amdgcn-amd-amdhsa--gfx90a"); package offloadbin has the rest of
// their metadata and writes them, and package inspect lists both kinds, and
// every container holding them (shared libraries, archives), in one walk.
package bundle
