package targetid

import (
	"fmt"
	"strings"
)

// Architecture names understood by LLVM 22.1.8's triple parser, each mapped to
// the name of its architecture type. Names that map to the same type are
// aliases (amd64 and x86_64). Checked against clang-offload-bundler 22.1.8
// (see arch_test.go and testdata/arch.txt).
var archNames = map[string]string{
	"i386": "x86", "i486": "x86", "i586": "x86", "i686": "x86",
	"i786": "x86", "i886": "x86", "i986": "x86",
	"amd64": "x86_64", "x86_64": "x86_64", "x86_64h": "x86_64",
	"powerpc": "ppc", "powerpcspe": "ppc", "ppc": "ppc", "ppc32": "ppc",
	"powerpcle": "ppcle", "ppcle": "ppcle", "ppc32le": "ppcle",
	"powerpc64": "ppc64", "ppu": "ppc64", "ppc64": "ppc64",
	"powerpc64le": "ppc64le", "ppc64le": "ppc64le",
	"xscale": "arm", "xscaleeb": "armeb",
	"aarch64": "aarch64", "aarch64_be": "aarch64_be", "aarch64_32": "aarch64_32",
	"aarch64_lfi": "aarch64",
	"arc":         "arc",
	"arm64":       "aarch64", "arm64_32": "aarch64_32", "arm64e": "aarch64", "arm64ec": "aarch64",
	"arm": "arm", "armeb": "armeb", "thumb": "thumb", "thumbeb": "thumbeb",
	"avr": "avr", "m68k": "m68k", "msp430": "msp430",
	"mips": "mips", "mipseb": "mips", "mipsallegrex": "mips", "mipsisa32r6": "mips", "mipsr6": "mips",
	"mipsel": "mipsel", "mipsallegrexel": "mipsel", "mipsisa32r6el": "mipsel", "mipsr6el": "mipsel",
	"mips64": "mips64", "mips64eb": "mips64", "mipsn32": "mips64", "mipsisa64r6": "mips64",
	"mips64r6": "mips64", "mipsn32r6": "mips64",
	"mips64el": "mips64el", "mipsn32el": "mips64el", "mipsisa64r6el": "mips64el",
	"mips64r6el": "mips64el", "mipsn32r6el": "mips64el",
	"r600": "r600", "amdgcn": "amdgcn",
	"riscv32": "riscv32", "riscv64": "riscv64", "riscv32be": "riscv32be", "riscv64be": "riscv64be",
	"hexagon": "hexagon",
	"s390x":   "systemz", "systemz": "systemz",
	"sparc": "sparc", "sparcel": "sparcel", "sparcv9": "sparcv9", "sparc64": "sparcv9",
	"tce": "tce", "tcele": "tcele",
	"xcore": "xcore",
	"nvptx": "nvptx", "nvptx64": "nvptx64",
	"amdil": "amdil", "amdil64": "amdil64", "hsail": "hsail", "hsail64": "hsail64",
	"spir": "spir", "spir64": "spir64",
	"spirv": "spirv", "spirv1.5": "spirv", "spirv1.6": "spirv",
	"lanai":          "lanai",
	"renderscript32": "renderscript32", "renderscript64": "renderscript64",
	"shave": "shave", "ve": "ve",
	"wasm32": "wasm32", "wasm64": "wasm64",
	"csky":        "csky",
	"loongarch32": "loongarch32", "loongarch64": "loongarch64",
	"xtensa": "xtensa",
	"dxil":   "dxil",
}

func init() {
	for _, v := range []string{"1.0", "1.1", "1.2", "1.3", "1.4", "1.5", "1.6"} {
		archNames["spirv32v"+v] = "spirv32"
		archNames["spirv64v"+v] = "spirv64"
	}
	archNames["spirv32"] = "spirv32"
	archNames["spirv64"] = "spirv64"
	for _, v := range []string{"1.0", "1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7", "1.8", "1.9"} {
		archNames["dxilv"+v] = "dxil"
	}
}

// parseArch returns the architecture type named by s, or "" when LLVM 22
// does not know it.
func parseArch(s string) string {
	if a, ok := archNames[s]; ok {
		return a
	}
	if strings.HasPrefix(s, "kalimba") {
		return "kalimba"
	}
	if strings.HasPrefix(s, "arm") || strings.HasPrefix(s, "thumb") || strings.HasPrefix(s, "aarch64") {
		return parseARMArch(s)
	}
	if strings.HasPrefix(s, "bpf") {
		switch s {
		case "bpf", "bpf_le", "bpfel":
			// Plain "bpf" takes the host's byte order; the reference tools
			// run on little-endian hosts.
			return "bpfel"
		case "bpf_be", "bpfeb":
			return "bpfeb"
		}
	}
	return ""
}

// armCanonical strips the "arm"/"thumb"/"aarch64" head and the endianness
// marker from an ARM architecture name and returns the remaining version
// part ("v7a"), s itself when nothing remains, or "" when the name is
// malformed.
func armCanonical(s string) string {
	a := s
	off := -1
	switch {
	case strings.HasPrefix(a, "arm64_32"):
		off = 8
	case strings.HasPrefix(a, "arm64e"):
		off = 6
	case strings.HasPrefix(a, "arm64"):
		off = 5
	case strings.HasPrefix(a, "aarch64_32"):
		off = 10
	case strings.HasPrefix(a, "arm"):
		off = 3
	case strings.HasPrefix(a, "thumb"):
		off = 5
	case strings.HasPrefix(a, "aarch64"):
		off = 7
		if strings.Contains(a, "eb") {
			return ""
		}
		if strings.HasPrefix(a[off:], "_be") {
			off += 3
		}
	}
	if off >= 0 && strings.HasPrefix(a[off:], "eb") {
		off += 2
	} else if strings.HasSuffix(a, "eb") {
		a = a[:len(a)-2]
	}
	if off >= 0 {
		a = a[min(off, len(a)):]
	}
	if a == "" {
		return s
	}
	if off >= 0 {
		if len(a) >= 2 && (a[0] != 'v' || a[1] < '0' || a[1] > '9') {
			return ""
		}
		if strings.Contains(a, "eb") {
			return ""
		}
	}
	return a
}

// parseARMArch handles the arm*, thumb* and aarch64* names that are not in
// the fixed table.
func parseARMArch(s string) string {
	var isa string
	switch {
	case strings.HasPrefix(s, "aarch64"), strings.HasPrefix(s, "arm64"):
		isa = "aarch64"
	case strings.HasPrefix(s, "thumb"):
		isa = "thumb"
	case strings.HasPrefix(s, "arm"):
		isa = "arm"
	default:
		return ""
	}
	big := false
	switch {
	case strings.HasPrefix(s, "armeb"), strings.HasPrefix(s, "thumbeb"), strings.HasPrefix(s, "aarch64_be"):
		big = true
	case strings.HasPrefix(s, "arm"), strings.HasPrefix(s, "thumb"):
		big = strings.HasSuffix(s, "eb")
	}
	arch := isa
	if big {
		arch = map[string]string{"arm": "armeb", "thumb": "thumbeb", "aarch64": "aarch64_be"}[isa]
	}
	c := armCanonical(s)
	if c == "" {
		return ""
	}
	if isa == "thumb" && (strings.HasPrefix(c, "v2") || strings.HasPrefix(c, "v3")) {
		return ""
	}
	// v6m exists only as Thumb.
	if armIsV6M(c) {
		if big {
			return "thumbeb"
		}
		return "thumb"
	}
	return arch
}

// armIsV6M reports whether the canonical ARM name c names the M-profile
// version 6 architecture (v6m, v6-m, v6sm, v6s-m, or any suffix of
// "armv6-m" that no earlier architecture name ends with).
func armIsV6M(c string) bool { return armLookup(c) == "armv6-m" }

// armSynonyms maps short ARM version spellings to the names LLVM 22 looks up.
var armSynonyms = map[string]string{
	"v5": "v5t", "v5e": "v5te", "v6j": "v6", "v6hl": "v6k",
	"v6m": "v6-m", "v6sm": "v6-m", "v6s-m": "v6-m", "v6z": "v6kz", "v6zk": "v6kz",
	"v7": "v7-a", "v7a": "v7-a", "v7hl": "v7-a", "v7l": "v7-a",
	"v7r": "v7-r", "v7m": "v7-m", "v7em": "v7e-m",
	"v8": "v8-a", "v8a": "v8-a", "v8l": "v8-a", "aarch64": "v8-a", "arm64": "v8-a",
	"v8r": "v8-r", "v9": "v9-a", "v9a": "v9-a",
	"v8m.base": "v8-m.base", "v8m.main": "v8-m.main", "v8.1m.main": "v8.1-m.main",
}

func init() {
	for i := 1; i <= 9; i++ {
		armSynonyms[fmt.Sprintf("v8.%da", i)] = fmt.Sprintf("v8.%d-a", i)
	}
	for i := 1; i <= 7; i++ {
		armSynonyms[fmt.Sprintf("v9.%da", i)] = fmt.Sprintf("v9.%d-a", i)
	}
}

// armArchs lists LLVM 22's ARM architecture names in table order, each with
// the triple sub-architecture it stands for ("" for none).
var armArchs = func() [][2]string {
	a := [][2]string{{"invalid", ""}, {"armv4", ""}, {"armv4t", "v4t"}, {"armv5t", "v5"},
		{"armv5te", "v5te"}, {"armv5tej", "v5te"}, {"armv6", "v6"}, {"armv6k", "v6k"},
		{"armv6t2", "v6t2"}, {"armv6kz", "v6k"}, {"armv6-m", "v6m"}, {"armv7-a", "v7"},
		{"armv7ve", "v7ve"}, {"armv7-r", "v7"}, {"armv7-m", "v7m"}, {"armv7e-m", "v7em"},
		{"armv8-a", "v8"}}
	for i := 1; i <= 9; i++ {
		a = append(a, [2]string{fmt.Sprintf("armv8.%d-a", i), fmt.Sprintf("v8.%d", i)})
	}
	a = append(a, [2]string{"armv9-a", "v9"})
	for i := 1; i <= 7; i++ {
		a = append(a, [2]string{fmt.Sprintf("armv9.%d-a", i), fmt.Sprintf("v9.%d", i)})
	}
	return append(a, [][2]string{{"armv8-r", "v8r"}, {"armv8-m.base", "v8m.base"},
		{"armv8-m.main", "v8m.main"}, {"armv8.1-m.main", "v8.1m.main"}, {"iwmmxt", "v5te"},
		{"iwmmxt2", "v5te"}, {"xscale", "v5te"}, {"armv7s", "v7s"}, {"armv7k", "v7k"}}...)
}()

// armLookup returns the first ARM architecture name that ends with the
// synonym of the canonical name c, as LLVM 22's ARM parser does, or "".
func armLookup(c string) string {
	syn := c
	if s, ok := armSynonyms[c]; ok {
		syn = s
	}
	for _, a := range armArchs {
		if strings.HasSuffix(a[0], syn) {
			return a[0]
		}
	}
	return ""
}

// parseSubArch returns a string identifying the sub-architecture LLVM 22
// derives from the architecture piece, or "" for none. It serves only to
// compare two triples. Like LLVM, it runs every other name through the ARM
// architecture lookup, so a few non-ARM names get an ARM sub-architecture
// ("ve" ends like "armv7ve"); that does not change any comparison.
func parseSubArch(s string) string {
	switch {
	case strings.HasPrefix(s, "mips") && (strings.HasSuffix(s, "r6el") || strings.HasSuffix(s, "r6")):
		return "mips-r6"
	case s == "powerpcspe":
		return "ppc-spe"
	case s == "arm64e":
		return "arm64e"
	case s == "arm64ec":
		return "arm64ec"
	case s == "aarch64_lfi":
		return "lfi"
	case strings.HasPrefix(s, "spirv"), strings.HasPrefix(s, "dxil"):
		for _, v := range []string{"v1.0", "v1.1", "v1.2", "v1.3", "v1.4", "v1.5", "v1.6", "v1.7", "v1.8", "v1.9"} {
			if strings.HasSuffix(s, v) {
				return s[:2] + v
			}
		}
		return ""
	}
	c := armCanonical(s)
	if c == "" {
		for _, k := range []string{"kalimba3", "kalimba4", "kalimba5"} {
			if strings.HasSuffix(s, k) {
				return k
			}
		}
		return ""
	}
	a := armLookup(c)
	for _, e := range armArchs {
		if e[0] == a {
			return e[1]
		}
	}
	return ""
}
