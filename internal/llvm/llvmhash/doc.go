// Package llvmhash reproduces the hash functions and hash-table layouts of
// LLVM 22 whose iteration order leaks into the files and messages of LLVM's
// offload tools: XXH3_64 and StringMap (bucket order of clang-offload-bundler's
// binary bundles and unbundle work list), and DenseMap<StringRef> (string
// table order of llvm-offload-binary).
package llvmhash
