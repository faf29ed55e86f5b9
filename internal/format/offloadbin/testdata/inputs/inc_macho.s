	.section __LLVM,__offload
	.incbin "p2.bin"
