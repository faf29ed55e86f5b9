// Package inspect finds the GPU code objects in any file and opens them.
//
// ReadFile (or Read over an io.ReaderAt) identifies the file with package
// magic and walks what it holds, container by container, reading headers
// only:
//
//   - ELF objects, executables and shared libraries: .hip_fatbin (one
//     offload bundle per translation unit, each 4 KiB aligned, plain or
//     compressed, zero padding between), __CLANG_OFFLOAD_BUNDLE__<id>
//     sections of fat objects, SHT_LLVM_OFFLOADING sections
//     (.llvm.offloading, .sycl_fatbin, .cray.llvm.offloading; any section
//     starting with an OffloadBinary or bundle magic), and the
//     .hipFatBinSegment wrappers the HIP runtime registers (HIPF, or HIPK
//     for kpack'd binaries), matched to the bundles they point at through
//     RELATIVE dynamic relocations where the linker left the field zero;
//   - COFF objects and PE images (.hip_fat, .llvm.offloading);
//   - archives (GNU, BSD, thin, AIX big), members walked in turn;
//   - binary bundles, text bundles, CCOBs of versions 1 to 3 (zstd or
//     zlib, several back to back, zero padded), inflated only as far as the
//     bundle's entry table reaches;
//   - OffloadBinaries of versions 1 to 3, several entries each, nested;
//   - host bitcode with embedded offload objects; KPAK archives;
//   - zip archives (Python wheels): stored members in place, compressed
//     ones that hold device code inflated into unlinked temporary files;
//   - plain AMDGPU and CUDA code objects.
//
// Each code object comes with its container path, file offset and size (or,
// inside compressed data, the compressed container's place and the offset
// within the inflated data), its bundle ID or OffloadBinary metadata, and
// what its own ELF header says: processor, xnack and SRAM ECC modes, code
// object version, kernel count. Object.Open streams its bytes; memory does
// not grow with the file.
//
// Damage does not stop a walk: each problem becomes an *Error naming the
// file, the container path, the offset and the field, and the walk goes on
// with the next container it can find. Listing.ForTarget picks what a GPU
// would load.
package inspect
