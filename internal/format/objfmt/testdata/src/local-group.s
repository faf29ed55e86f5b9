# COMDAT groups named by a local symbol (as g++ names C5/D5 constructor
# groups) lose GRP_COMDAT in llvm-objcopy's output; groups named by global
# or weak symbols keep it.
	.section .text.loc,"axG",@progbits,sig_local,comdat
sig_local:
	ret
	.section .text.glob,"axG",@progbits,sig_global,comdat
	.globl sig_global
sig_global:
	ret
	.section .text.weak,"axG",@progbits,sig_weak,comdat
	.weak sig_weak
sig_weak:
	ret
	.section .data.loc,"awG",@progbits,sig_local2,comdat
sig_local2:
	.quad sig_global
	.section .text.plain,"axG",@progbits,sig_plain
	.globl sig_plain
sig_plain:
	ret
