target triple = "nosuch-unknown-unknown"
@g = global i32 1
define i32 @f() {
  ret i32 0
}
