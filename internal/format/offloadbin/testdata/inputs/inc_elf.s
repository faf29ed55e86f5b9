	.section .llvm.offloading,"e",@llvm_offloading
	.incbin "p2.bin"
	.section .foo,"e",@llvm_offloading
	.incbin "p2.bin"
	.section .llvm.offloading.prog,"a",@progbits
	.incbin "p2.bin"
