.text
ret
.section __CLANG_OFFLOAD_BUNDLE__g,"G",@progbits,grp,comdat
.byte 1
.section .data.x,"aw",@progbits
.quad 0
