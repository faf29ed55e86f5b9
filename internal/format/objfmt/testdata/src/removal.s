.addrsig
.text
ret
.section __CLANG_OFFLOAD_BUNDLE__a,"",@progbits
.byte 0
.section .text.f,"axG",@progbits,f,comdat
.weak f
f: ret
.section __CLANG_OFFLOAD_BUNDLE__g,"G",@progbits,f,comdat
.byte 1
.section .data.x,"aw",@progbits
.quad f
.addrsig_sym f
