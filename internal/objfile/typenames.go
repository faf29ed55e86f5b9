package objfile

// TypeName is LLVM's name for a section type in its messages.
func TypeName(machine uint16, t uint32) string {
	if n, ok := genericTypeNames[t]; ok {
		return n
	}
	if n, ok := machineTypeNames[machine][t]; ok {
		return n
	}
	return "Unknown"
}

var genericTypeNames = map[uint32]string{
	0: "SHT_NULL", 1: "SHT_PROGBITS", 2: "SHT_SYMTAB", 3: "SHT_STRTAB", 4: "SHT_RELA",
	5: "SHT_HASH", 6: "SHT_DYNAMIC", 7: "SHT_NOTE", 8: "SHT_NOBITS", 9: "SHT_REL",
	10: "SHT_SHLIB", 11: "SHT_DYNSYM", 14: "SHT_INIT_ARRAY", 15: "SHT_FINI_ARRAY",
	16: "SHT_PREINIT_ARRAY", 17: "SHT_GROUP", 18: "SHT_SYMTAB_SHNDX", 19: "SHT_RELR",
	0x40000014: "SHT_CREL",
	0x60000001: "SHT_ANDROID_REL", 0x60000002: "SHT_ANDROID_RELA",
	0x6fff4c00: "SHT_LLVM_ODRTAB", 0x6fff4c01: "SHT_LLVM_LINKER_OPTIONS",
	0x6fff4c03: "SHT_LLVM_ADDRSIG", 0x6fff4c04: "SHT_LLVM_DEPENDENT_LIBRARIES",
	0x6fff4c05: "SHT_LLVM_SYMPART", 0x6fff4c06: "SHT_LLVM_PART_EHDR",
	0x6fff4c07: "SHT_LLVM_PART_PHDR", 0x6fff4c09: "SHT_LLVM_CALL_GRAPH_PROFILE",
	0x6fff4c0a: "SHT_LLVM_BB_ADDR_MAP", 0x6fff4c0b: "SHT_LLVM_OFFLOADING",
	0x6fff4c0c: "SHT_LLVM_LTO", 0x6fff4c0d: "SHT_LLVM_JT_SIZES",
	0x6fff4c0e: "SHT_LLVM_CFI_JUMP_TABLE", 0x6fff4c0f: "SHT_LLVM_CALL_GRAPH",
	0x6fffff00: "SHT_ANDROID_RELR",
	0x6ffffff4: "SHT_GNU_SFRAME", 0x6ffffff5: "SHT_GNU_ATTRIBUTES", 0x6ffffff6: "SHT_GNU_HASH",
	0x6ffffffd: "SHT_GNU_verdef", 0x6ffffffe: "SHT_GNU_verneed", 0x6fffffff: "SHT_GNU_versym",
}

// machineTypeNames are the processor-specific names LLVM 22 prints, by
// e_machine (observed with llvm-objcopy 22).
var machineTypeNames = map[uint16]map[uint32]string{
	62:  {0x70000001: "SHT_X86_64_UNWIND"},
	183: {0x70000004: "SHT_AARCH64_AUTH_RELR", 0x70000007: "SHT_AARCH64_MEMTAG_GLOBALS_STATIC", 0x70000008: "SHT_AARCH64_MEMTAG_GLOBALS_DYNAMIC"},
	40: {0x70000001: "SHT_ARM_EXIDX", 0x70000002: "SHT_ARM_PREEMPTMAP", 0x70000003: "SHT_ARM_ATTRIBUTES",
		0x70000004: "SHT_ARM_DEBUGOVERLAY", 0x70000005: "SHT_ARM_OVERLAYSECTION"},
	8:   {0x70000006: "SHT_MIPS_REGINFO", 0x7000000d: "SHT_MIPS_OPTIONS", 0x7000001e: "SHT_MIPS_DWARF", 0x7000002a: "SHT_MIPS_ABIFLAGS"},
	243: {0x70000003: "SHT_RISCV_ATTRIBUTES"},
	164: {0x70000000: "SHT_HEX_ORDERED", 0x70000003: "SHT_HEXAGON_ATTRIBUTES"},
	105: {0x70000003: "SHT_MSP430_ATTRIBUTES"},
}
