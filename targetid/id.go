package targetid

import (
	"strings"
)

// ID is a bundle entry ID split as LLVM 22 splits it (see Parse): the
// offload kind, the four triple pieces as written, and the target ID.
type ID struct {
	Kind, Arch, Vendor, OS, Env string // the offload kind and the 4 raw triple pieces
	// TargetID is piece 6 only if its processor (the text before the first
	// ':') is a known OffloadArch (IsOffloadArch), else "".
	TargetID string
}

// Parse splits a bundle entry ID "<kind>-<arch>-<vendor>-<os>-<env>[-<target
// id>]" into at most 6 pieces at '-'; everything after the fifth '-' belongs
// to the target ID. It reports false unless there are exactly 5 or 6 pieces.
// Pieces may be empty. Piece 6 is silently dropped when its processor is not
// a known OffloadArch, as clang-offload-bundler 22 does.
func Parse(s string) (ID, bool) {
	p := strings.SplitN(s, "-", 6)
	if len(p) != 5 && len(p) != 6 {
		return ID{}, false
	}
	id := ID{Kind: p[0], Arch: p[1], Vendor: p[2], OS: p[3], Env: p[4]}
	if len(p) == 6 {
		proc, _, _ := strings.Cut(p[5], ":")
		if IsOffloadArch(proc) {
			id.TargetID = p[5]
		}
	}
	return id, true
}

// ParseStored splits a bundle entry ID read from a bundle. An ID of 5 or 6
// pieces is split as Parse splits it, its pieces kept as stored (LLVM 22
// never standardises what it reads). An ID of 4 pieces,
// "<kind>-<arch>-<vendor>-<os>", has the 3-field triple older releases
// wrote (ROCm 5's fat binaries hold "host-x86_64-unknown-linux"); LLVM 22
// rejects it ("invalid bundle id read from the bundle"). ParseStored reads
// it as the ID the bundler writes for that triple today: normalised and
// padded as StandardTriple does, with no target ID, so
// "host-x86_64-unknown-linux" is "host-x86_64-unknown-linux-unknown-" and
// "hip-amdgcn-amd-amdhsa" is "hip-amdgcn-amd-amdhsa--". Other piece counts
// are rejected.
func ParseStored(s string) (ID, bool) {
	if id, ok := Parse(s); ok {
		return id, true
	}
	p := strings.Split(s, "-")
	if len(p) != 4 {
		return ID{}, false
	}
	c := standardTriple(p[1]+"-"+p[2]+"-"+p[3], p[3])
	return ID{Kind: p[0], Arch: c[0], Vendor: c[1], OS: c[2], Env: c[3]}, true
}

// Triple returns the raw triple pieces joined with '-': "arch-vendor-os-env".
func (id ID) Triple() string {
	return id.Arch + "-" + id.Vendor + "-" + id.OS + "-" + id.Env
}

// Key returns "<kind>-<arch>-<vendor>-<os>-<env>", the raw key under which the
// bundler groups command-line targets for the conflict check.
func (id ID) Key() string { return id.Kind + "-" + id.Triple() }

// ValidKind reports whether the offload kind is one the bundler accepts on
// the command line: host, openmp, hip or hipv4 (case-sensitive).
func (id ID) ValidKind() bool {
	switch id.Kind {
	case "host", "openmp", "hip", "hipv4":
		return true
	}
	return false
}

// ValidTriple reports whether the triple is valid for the bundler: its
// architecture piece, parsed by itself, is an architecture LLVM 22 knows.
// Vendor, OS and environment are not checked.
func (id ID) ValidTriple() bool { return parseArch(id.Arch) != "" }

// IsHost reports whether the offload kind is "host".
func (id ID) IsHost() bool { return id.Kind == "host" }

// StandardTriple returns the triple as the bundler writes it: for an amdhsa OS
// piece the normalised triple cut or padded to 3 components followed by an
// empty environment ("amdgcn-amd-amdhsa-"), otherwise the normalised triple
// cut or padded to 4 components.
func (id ID) StandardTriple() string {
	return strings.Join(standardTriple(id.Triple(), id.OS), "-")
}

// standardTriple returns the 4 components of a standardised triple: the
// normalised triple cut or padded to 3 components and an empty environment
// when the OS piece os is amdhsa, else cut or padded to 4.
func standardTriple(triple, os string) []string {
	comps := normalize(triple)
	if parseOS(os) == "amdhsa" {
		return append(resize(comps, 3, "unknown"), "")
	}
	return resize(comps, 4, "unknown")
}

// Standard returns the ID as the bundler writes it into bundles:
// "<kind>-<standard triple>-<TargetID>", always with a '-' before the
// (possibly empty) TargetID.
func (id ID) Standard() string {
	return id.Kind + "-" + id.StandardTriple() + "-" + id.TargetID
}

// String returns the ID in the form "<kind>-<raw triple>[-<TargetID>]" with a
// '-' before the TargetID only when it is not empty.
func (id ID) String() string {
	if id.TargetID == "" {
		return id.Key()
	}
	return id.Key() + "-" + id.TargetID
}
