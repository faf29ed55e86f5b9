// Package e2e proves that goffload's tools are drop-in replacements for
// LLVM 22's, as clang itself uses them.
//
// `clang -B DIR` makes the clang driver run the clang-offload-bundler and
// llvm-offload-binary it finds in DIR instead of its own. Each test runs the
// same real compile and link jobs (HIP without a GPU runtime, OpenMP target
// offloading) twice in the same folder, once with LLVM 22's tools and once
// with goffload's, and compares every output byte for byte. The package has
// no API; it consists of its tests and the sources in testdata/.
//
// The tests skip, with a message, when clang 22 is not installed (CI installs
// the Debian packages clang-22, lld-22 and llvm-22). They fail when one of
// goffload's tools does not build.
//
// Environment:
//
//	GOFFLOAD_LLVM_DIR       where LLVM 22's tools are (default /usr/lib/llvm-22/bin)
//	GOFFLOAD_E2E_OURS_DIR   a folder holding the tools to test instead of
//	                        building goffload's (any subset of
//	                        clang-offload-bundler, llvm-offload-binary,
//	                        clang-offload-packager); the value "@llvm" makes a
//	                        folder of symlinks to LLVM's own tools, which checks
//	                        that the harness itself is deterministic
//	GOFFLOAD_E2E_KEEP       a folder to copy both runs' outputs into, for
//	                        inspecting a difference
//
// scripts/e2e.sh runs the same jobs from the command line on any source file.
package e2e
