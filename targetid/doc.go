// Package targetid implements the bundle entry IDs and AMDGPU target IDs of
// clang-offload-bundler 22.1.8: splitting an ID into offload kind, triple and
// target ID, the validity checks on command-line targets, the standard form
// written into bundles (including LLVM 22's Triple::normalize), the
// compatibility of a stored ID with a requested one and the target-ID
// conflict rule; and the runtime's choice of code object for a GPU
// (GPU.Fit). The bundler's error messages built from them are its command
// line's (internal/tool/bundler).
//
// Everything here reproduces the observable behaviour of the LLVM 22.1.8
// binary, which the tests check against the reference tool when it is
// installed and against golden tables recorded from it otherwise.
package targetid
