; No target LLVM knows: llvm-as writes no irsymtab, so llvm-ar reads the IR.
target triple = "nosuch-unknown-unknown"
target datalayout = "e-m:o-p:64:64"
@ext = global i32 1
@common = common global i32 0
@weak = weak global i32 1
@weak_odr = weak_odr global i32 1
@linkonce = linkonce global i32 1
@linkonce_odr = linkonce_odr global i32 1
@internal = internal global i32 1
@private = private global i32 1
@avail = available_externally global i32 1
@extern_weak = extern_weak global i32
@decl = external global i32
@hidden = hidden global i32 1
@tls = thread_local global i32 1
@in_md = global i32 1, section "llvm.metadata"
@in_other = global i32 1, section "other"
@llvm.used = appending global [1 x ptr] [ptr @ext], section "llvm.metadata"
@llvm.something = global i32 1
@"\01raw" = global i32 1
@appending = appending global [1 x i32] [i32 1]
@dllexp = dllexport global i32 1
define void @fdef() {
  ret void
}
define internal void @finternal() {
  ret void
}
define available_externally void @favail() {
  ret void
}
define linkonce_odr void @flinkonce() {
  ret void
}
define weak void @fweak() {
  ret void
}
declare void @fdecl()
declare extern_weak void @fextweak()
@alias = alias i32, ptr @ext
@alias_int = internal alias i32, ptr @ext
@alias_weak = weak alias i32, ptr @ext
@ifunc = ifunc void (), ptr @resolver
define internal ptr @resolver() {
  ret ptr @fdef
}
