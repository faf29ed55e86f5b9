package targetid

import (
	"fmt"
	"strings"
)

// Vendor names LLVM 22 recognises (exact, case-sensitive match).
var vendorNames = map[string]bool{
	"apple": true, "pc": true, "scei": true, "sie": true, "fsl": true, "ibm": true,
	"img": true, "mti": true, "nvidia": true, "csr": true, "amd": true, "mesa": true,
	"suse": true, "oe": true, "intel": true, "meta": true,
}

// osPrefixes lists the OS names LLVM 22 recognises by prefix, in match
// order, each with the name of its OS type.
var osPrefixes = []struct{ prefix, os string }{
	{"darwin", "darwin"}, {"dragonfly", "dragonfly"}, {"freebsd", "freebsd"},
	{"fuchsia", "fuchsia"}, {"ios", "ios"}, {"kfreebsd", "kfreebsd"}, {"linux", "linux"},
	{"lv2", "lv2"}, {"macosx", "macosx"}, {"macos", "macosx"}, {"managarm", "managarm"},
	{"netbsd", "netbsd"}, {"openbsd", "openbsd"}, {"solaris", "solaris"}, {"uefi", "uefi"},
	{"windows", "windows"}, {"win32", "windows"}, {"zos", "zos"}, {"haiku", "haiku"},
	{"rtems", "rtems"}, {"aix", "aix"}, {"cuda", "cuda"}, {"nvcl", "nvcl"},
	{"amdhsa", "amdhsa"}, {"ps4", "ps4"}, {"ps5", "ps5"}, {"elfiamcu", "elfiamcu"},
	{"tvos", "tvos"}, {"watchos", "watchos"}, {"bridgeos", "bridgeos"},
	{"driverkit", "driverkit"}, {"xros", "xros"}, {"visionos", "xros"},
	{"mesa3d", "mesa3d"}, {"amdpal", "amdpal"}, {"hermit", "hermit"}, {"hurd", "hurd"},
	{"wasip1", "wasip1"}, {"wasip2", "wasip2"}, {"wasip3", "wasip3"}, {"wasi", "wasi"},
	{"emscripten", "emscripten"}, {"shadermodel", "shadermodel"}, {"liteos", "liteos"},
	{"serenity", "serenity"}, {"vulkan", "vulkan"}, {"cheriotrtos", "cheriotrtos"},
}

// envPrefixes lists the environment names LLVM 22 recognises by prefix, in
// match order.
var envPrefixes = []string{
	"eabihf", "eabi", "gnuabin32", "gnuabi64", "gnueabihft64", "gnueabihf", "gnueabit64",
	"gnueabi", "gnuf32", "gnuf64", "gnusf", "gnux32", "gnu_ilp32", "code16", "gnut64", "gnu",
	"android", "muslabin32", "muslabi64", "musleabihf", "musleabi", "muslf32", "muslsf",
	"muslx32", "muslwali", "musl", "msvc", "itanium", "cygnus", "coreclr", "simulator",
	"macabi", "pixel", "vertex", "geometry", "hull", "domain", "compute", "library",
	"raygeneration", "intersection", "anyhit", "closesthit", "miss", "callable", "mesh",
	"amplification", "rootsignature", "ohos", "pauthtest", "llvm", "mlibc", "mtia", "opencl",
}

// objSuffixes lists the object-format names LLVM 22 recognises by suffix, in
// match order.
var objSuffixes = []string{"xcoff", "coff", "elf", "goff", "macho", "wasm", "spirv"}

func parseVendor(s string) string {
	if vendorNames[s] {
		return s
	}
	return ""
}

func parseOS(s string) string {
	for _, e := range osPrefixes {
		if strings.HasPrefix(s, e.prefix) {
			return e.os
		}
	}
	return ""
}

func parseEnv(s string) string {
	for _, e := range envPrefixes {
		if strings.HasPrefix(s, e) {
			return e
		}
	}
	return ""
}

func parseObjFormat(s string) string {
	for _, e := range objSuffixes {
		if strings.HasSuffix(s, e) {
			return e
		}
	}
	return ""
}

func isCygwinOS(s string) bool {
	return strings.HasPrefix(s, "cygwin") || strings.HasPrefix(s, "msys")
}

func isMinGWOS(s string) bool { return strings.HasPrefix(s, "mingw") }

// NormalizeTriple returns LLVM 22's Triple::normalize of t, without any
// resizing to a fixed number of components: the components are moved to the
// position whose kind (arch, vendor, OS, environment or object format) they
// parse as, empty components become "unknown", and the Android, SUSE,
// Windows, MinGW, Cygwin and DXIL special cases are applied.
func NormalizeTriple(t string) string {
	return strings.Join(normalize(t), "-")
}

// normalize is NormalizeTriple returning the components.
func normalize(t string) []string {
	comps := strings.Split(t, "-")
	var k tripleKinds
	if len(comps) > 0 {
		k.arch = parseArch(comps[0])
	}
	if len(comps) > 1 {
		k.vendor = parseVendor(comps[1])
	}
	if len(comps) > 2 {
		k.osName = parseOS(comps[2])
		k.cygwin, k.mingw = isCygwinOS(comps[2]), isMinGWOS(comps[2])
	}
	if len(comps) > 3 {
		k.env = parseEnv(comps[3])
	}
	if len(comps) > 4 {
		k.obj = parseObjFormat(comps[4])
	}
	// fixed marks the positions whose component is already in place.
	fixed := [4]bool{k.arch != "", k.vendor != "", k.osName != "", k.env != ""}
	comps = k.place(comps, &fixed)
	return k.specialCases(comps, fixed)
}

// tripleKinds is what normalize parsed components as: the architecture,
// vendor, OS, environment and object format ("" for none), and whether the
// OS is Cygwin or MinGW.
type tripleKinds struct {
	arch, vendor, osName, env, obj string
	cygwin, mingw                  bool
}

// parseAt parses c as the kind of position pos and records the result,
// as LLVM does for every candidate it tries.
func (k *tripleKinds) parseAt(pos int, c string) bool {
	switch pos {
	case 0:
		k.arch = parseArch(c)
		return k.arch != ""
	case 1:
		k.vendor = parseVendor(c)
		return k.vendor != ""
	case 2:
		k.osName = parseOS(c)
		k.cygwin, k.mingw = isCygwinOS(c), isMinGWOS(c)
		return k.osName != "" || k.cygwin || k.mingw
	default:
		k.env = parseEnv(c)
		if k.env != "" {
			return true
		}
		k.obj = parseObjFormat(c)
		return k.obj != ""
	}
}

// place moves each component not yet in place (fixed) to the first free
// position whose kind it parses as, and returns the components.
func (k *tripleKinds) place(comps []string, fixed *[4]bool) []string {
	isFixed := func(i int) bool { return i < len(fixed) && fixed[i] }

	for pos := range fixed {
		if fixed[pos] {
			continue
		}
		for idx := 0; idx < len(comps); idx++ {
			if isFixed(idx) || !k.parseAt(pos, comps[idx]) {
				continue
			}
			switch {
			case pos < idx:
				moveLeft(comps, pos, idx, isFixed)
			case pos > idx:
				comps = moveRight(comps, pos, idx, isFixed)
			}
			fixed[pos] = true
			break
		}
	}
	return comps
}

// moveLeft moves the component at idx to pos: the non-fixed components from
// pos onwards shift right until the hole left at idx is filled.
func moveLeft(comps []string, pos, idx int, isFixed func(int) bool) {
	cur := comps[idx]
	comps[idx] = ""
	for i := pos; cur != ""; i++ {
		for isFixed(i) {
			i++
		}
		cur, comps[i] = comps[i], cur
	}
}

// moveRight moves the component at idx to pos: empty components are
// inserted at idx, skipping fixed positions, until the component reaches
// pos.
func moveRight(comps []string, pos, idx int, isFixed func(int) bool) []string {
	for idx < pos {
		cur := ""
		for i := idx; i < len(comps); {
			cur, comps[i] = comps[i], cur
			if cur == "" {
				break
			}
			for i++; isFixed(i); i++ {
			}
		}
		if cur != "" {
			comps = append(comps, cur)
		}
		for idx++; isFixed(idx); idx++ {
		}
	}
	return comps
}

// specialCases fills the empty components with "unknown" and applies the
// "arch-none-env", Android, SUSE, Windows, MinGW, Cygwin and DXIL special
// cases to the placed components.
func (k *tripleKinds) specialCases(comps []string, fixed [4]bool) []string {
	// A three-component "arch-none-env" keeps "none" as its OS.
	if fixed[0] && !fixed[1] && !fixed[2] && fixed[3] && comps[1] == "none" && comps[2] == "" {
		comps[1], comps[2] = comps[2], comps[1]
	}
	for i, c := range comps {
		if c == "" {
			comps[i] = "unknown"
		}
	}
	if k.env == "android" && strings.HasPrefix(comps[3], "androideabi") {
		comps[3] = "android" + strings.TrimPrefix(comps[3], "androideabi")
	}
	if k.vendor == "suse" && k.env == "gnueabi" {
		comps[3] = "gnueabihf"
	}
	switch {
	case k.osName == "windows":
		comps = resize(comps, 4, "")
		comps[2] = "windows"
		if k.env == "" {
			if k.obj == "" || k.obj == "coff" {
				comps[3] = "msvc"
			} else {
				comps[3] = k.obj
			}
		}
	case k.mingw:
		comps = resize(comps, 4, "")
		comps[2], comps[3] = "windows", "gnu"
	case k.cygwin:
		comps = resize(comps, 4, "")
		comps[2], comps[3] = "windows", "cygnus"
	}
	if (k.mingw || k.cygwin || k.osName == "windows" && k.env != "") && k.obj != "" && k.obj != "coff" {
		comps = resize(comps, 5, "")
		comps[4] = k.obj
	}
	if comps[0] == "dxil" {
		comps = resize(comps, min(len(comps), 4), "")
		if k.osName == "shadermodel" {
			comps[0] = dxilFromShaderModel(comps[2])
		}
	}
	return comps
}

// dxilFromShaderModel returns the DXIL architecture name matching a
// shadermodel OS name: "shadermodel6.Y[.Z]" gives dxilv1.Y, "shadermodel6.x"
// the newest version (dxilv1.9), and anything else, including versions
// that do not parse, dxilv1.0. For 6.10 and above LLVM 22 aborts with
// "Unsupported Shader Model version"; the name is then left as "dxil".
func dxilFromShaderModel(os string) string {
	v := strings.TrimPrefix(os, "shadermodel")
	if v == "6.x" {
		return "dxilv1.9"
	}
	parts := strings.Split(v, ".")
	if len(parts) > 4 {
		return "dxilv1.0"
	}
	nums := make([]int, len(parts))
	for i, p := range parts {
		if p == "" || len(p) > 9 {
			return "dxilv1.0"
		}
		for _, c := range p {
			if c < '0' || c > '9' {
				return "dxilv1.0"
			}
			nums[i] = nums[i]*10 + int(c-'0')
		}
	}
	if nums[0] != 6 || len(nums) < 2 {
		return "dxilv1.0"
	}
	if nums[1] > 9 {
		return "dxil"
	}
	return fmt.Sprintf("dxilv1.%d", nums[1])
}

// resize returns comps truncated or padded with fill to n components.
func resize(comps []string, n int, fill string) []string {
	for len(comps) < n {
		comps = append(comps, fill)
	}
	return comps[:n]
}

// tripleInfo is a triple parsed piece by piece without normalisation, as
// LLVM's Triple constructor does.
type tripleInfo struct {
	arch, subArch, vendor, os, env, obj string
}

func parseTriple(t string) tripleInfo {
	comps := strings.SplitN(t, "-", 4)
	var ti tripleInfo
	ti.arch = parseArch(comps[0])
	ti.subArch = parseSubArch(comps[0])
	if len(comps) > 1 {
		ti.vendor = parseVendor(comps[1])
		if len(comps) > 2 {
			ti.os = parseOS(comps[2])
			if len(comps) > 3 {
				ti.env = parseEnv(comps[3])
				ti.obj = parseObjFormat(comps[3])
			}
		}
	} else {
		switch {
		case strings.HasPrefix(comps[0], "mipsn32"):
			ti.env = "gnuabin32"
		case strings.HasPrefix(comps[0], "mips64"), strings.HasPrefix(comps[0], "mipsisa64"):
			ti.env = "gnuabi64"
		case strings.HasPrefix(comps[0], "mipsisa32"):
			ti.env = "gnu"
		case comps[0] == "mips", comps[0] == "mipsel", comps[0] == "mipsr6", comps[0] == "mipsr6el":
			ti.env = "gnu"
		}
	}
	if ti.obj == "" {
		ti.obj = defaultObjFormat(ti.arch, ti.os)
	}
	return ti
}

func isDarwinOS(os string) bool {
	switch os {
	case "darwin", "macosx", "ios", "tvos", "watchos", "bridgeos", "driverkit", "xros":
		return true
	}
	return false
}

// defaultObjFormat is the object format LLVM assumes for an architecture and
// OS when the triple names none.
func defaultObjFormat(arch, os string) string {
	switch arch {
	case "aarch64", "aarch64_32", "arm", "thumb", "x86", "x86_64":
		if isDarwinOS(os) {
			return "macho"
		}
		if os == "windows" || os == "uefi" && (arch == "x86" || arch == "x86_64") {
			return "coff"
		}
		return "elf"
	case "ppc", "ppc64":
		if os == "aix" {
			return "xcoff"
		}
		return "elf"
	case "systemz":
		if os == "zos" {
			return "goff"
		}
		return "elf"
	case "wasm32", "wasm64":
		return "wasm"
	case "spirv", "spirv32", "spirv64":
		return "spirv"
	case "dxil":
		return "dxcontainer"
	}
	return "elf"
}

// compatibleWith reports whether LLVM 22 considers triple a compatible with
// triple b (Triple::isCompatibleWith).
func (a tripleInfo) compatibleWith(b tripleInfo) bool {
	armPair := func(x, y string) bool {
		return x == "thumb" && y == "arm" || x == "arm" && y == "thumb" ||
			x == "thumbeb" && y == "armeb" || x == "armeb" && y == "thumbeb"
	}
	if armPair(a.arch, b.arch) {
		if a.vendor == "apple" {
			return a.subArch == b.subArch && a.vendor == b.vendor && a.os == b.os
		}
		return a.subArch == b.subArch && a.vendor == b.vendor && a.os == b.os &&
			a.env == b.env && a.obj == b.obj
	}
	winGNU := func(t tripleInfo) bool { return t.os == "windows" && t.env == "gnu" }
	if winGNU(a) && winGNU(b) {
		return a.arch == b.arch && a.subArch == b.subArch && a.os == b.os &&
			a.env == b.env && a.obj == b.obj
	}
	if a.vendor == "apple" {
		return a.arch == b.arch && a.subArch == b.subArch && a.vendor == b.vendor && a.os == b.os
	}
	return a == b
}
