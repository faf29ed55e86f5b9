package targetid

import (
	"slices"
	"strings"
)

// offloadArchs are the processor names clang-offload-bundler 22.1.8 accepts
// as the start of a target ID (exact, case-sensitive).
var offloadArchs = map[string]bool{}

// AMDGPU feature support of each amdgcn processor that is also an
// OffloadArch, as LLVM 22.1.8 decides whether a target ID is legal when it
// checks compatibility (probed processor by processor): xnack and sramecc,
// xnack only, or no feature at all. No other feature name is legal.
const (
	featXnack   = 1 << iota // supports "xnack"
	featSramecc             // supports "sramecc"
)

var amdgcnProcessors = map[string]int{}

func init() {
	for _, n := range strings.Fields(`sm_20 sm_21 sm_30 sm_32 sm_35 sm_37 sm_50 sm_52 sm_53
		sm_60 sm_61 sm_62 sm_70 sm_72 sm_75 sm_80 sm_86 sm_87 sm_88 sm_89 sm_90 sm_90a sm_100
		sm_100a sm_101 sm_101a sm_103 sm_103a sm_110 sm_110a sm_120 sm_120a sm_121 sm_121a
		amdgcnspirv graniterapids bmg_g21 generic`) {
		offloadArchs[n] = true
	}
	both := `gfx906 gfx908 gfx90a gfx9-4-generic gfx942 gfx950`
	xnack := `gfx801 gfx810 gfx9-generic gfx900 gfx902 gfx904 gfx909 gfx90c gfx10-1-generic
		gfx1010 gfx1011 gfx1012 gfx1013`
	neither := `gfx600 gfx601 gfx602 gfx700 gfx701 gfx702 gfx703 gfx704 gfx705 gfx802 gfx803
		gfx805 gfx10-3-generic gfx1030 gfx1031 gfx1032 gfx1033 gfx1034 gfx1035 gfx1036
		gfx11-generic gfx1100 gfx1101 gfx1102 gfx1103 gfx1150 gfx1151 gfx1152 gfx1153
		gfx12-generic gfx1200 gfx1201 gfx1250 gfx1251`
	for _, g := range []struct {
		names string
		feats int
	}{{both, featXnack | featSramecc}, {xnack, featXnack}, {neither, 0}} {
		for _, n := range strings.Fields(g.names) {
			offloadArchs[n] = true
			amdgcnProcessors[n] = g.feats
		}
	}
}

// IsOffloadArch reports whether proc is a processor name LLVM 22.1.8's
// OffloadArch table knows: the exact, case-sensitive names of the table
// above (every name the 22.1.8 binary accepts, found by trying them, which
// includes sm_88, sm_110, sm_110a and gfx1251). Aliases (fiji, tahiti),
// upper case, gfx940/gfx941 and compute_70 are not. Only such processors
// survive in a bundle entry ID, whatever the triple.
func IsOffloadArch(proc string) bool { return offloadArchs[proc] }

// AMDGPUFeatures returns the target-ID features ("xnack", "sramecc") an
// amdgcn processor supports, and false if proc is not an amdgcn processor
// that can appear in a bundle entry ID.
func AMDGPUFeatures(proc string) ([]string, bool) {
	f, ok := amdgcnProcessors[proc]
	if !ok {
		return nil, false
	}
	var feats []string
	if f&featXnack != 0 {
		feats = append(feats, "xnack")
	}
	if f&featSramecc != 0 {
		feats = append(feats, "sramecc")
	}
	return feats, true
}

// ParseTargetIDFeatures checks the format of a target ID
// "processor(:feature(+|-))*" and splits it into the processor and a map
// from feature name to whether it is on ('+'). An empty tid is valid, with
// processor "". Otherwise the processor must not be empty, every
// ':'-separated piece must end in '+' or '-' (the name before it may be
// empty), and no feature may repeat. A trailing ':' ("gfx906:",
// "gfx906:xnack+:") ends the list and is valid.
func ParseTargetIDFeatures(tid string) (proc string, feats map[string]bool, ok bool) {
	proc, feats, ok = parseFeatures(tid)
	if !ok {
		return "", nil, false
	}
	return proc, feats, true
}

// parseFeatures is ParseTargetIDFeatures, except that on failure it still
// returns the features read before the faulty piece.
func parseFeatures(tid string) (proc string, feats map[string]bool, ok bool) {
	feats = map[string]bool{}
	if tid == "" {
		return "", feats, true
	}
	proc, rest, _ := strings.Cut(tid, ":")
	if proc == "" {
		return "", feats, false
	}
	for rest != "" {
		var f string
		f, rest, _ = strings.Cut(rest, ":")
		if f == "" {
			return proc, feats, false
		}
		sign := f[len(f)-1]
		if sign != '+' && sign != '-' {
			return proc, feats, false
		}
		name := f[:len(f)-1]
		if _, dup := feats[name]; dup {
			return proc, feats, false
		}
		feats[name] = sign == '+'
	}
	return proc, feats, true
}

// FirstMalformed returns the first target ID, in byte order, that
// ParseTargetIDFeatures rejects. Such IDs make LLVM 22's conflict check read
// an unset value (see ConflictingPair); a port may prefer to reject them.
func FirstMalformed(tids []string) (string, bool) {
	s := slices.Clone(tids)
	slices.Sort(s)
	for _, t := range s {
		if _, _, ok := ParseTargetIDFeatures(t); !ok {
			return t, true
		}
	}
	return "", false
}

// ConflictingPair applies LLVM 22's target-ID conflict rule to the set of
// target-ID strings tids: in byte order, the first ID seen for a processor
// (the text before the first ':', not canonicalised) sets the allowed
// feature names; a later ID for the same processor conflicts if it names
// any other feature, whatever the signs. It returns the first ID of that
// processor and the conflicting one. Duplicates are ignored. Because of the
// sort the rule is asymmetric: gfx906 and gfx906:xnack+ conflict, and so do
// gfx906:sramecc+ and gfx906:xnack+, but gfx906:xnack- and gfx906:xnack+ do
// not, nor do gfx906:sramecc+:xnack+ and gfx906:xnack+.
//
// An ID that ParseTargetIDFeatures rejects is undefined behaviour in LLVM
// 22 (it uses the empty result of a failed parse). The 22.1.8 binary does
// not crash: the malformed ID takes the processor of the previous
// well-formed ID of the walk ("" if there is none) and the features read
// before the faulty piece. ConflictingPair reproduces that, which matches
// every case probed (testdata/conflict.txt); see FirstMalformed to reject
// such IDs instead.
func ConflictingPair(tids []string) (a, b string, ok bool) {
	s := slices.Clone(tids)
	slices.Sort(s)
	s = slices.Compact(s)
	type first struct {
		id    string
		feats map[string]bool
	}
	seen := map[string]first{}
	last := ""
	for _, t := range s {
		proc, feats, valid := parseFeatures(t)
		if valid {
			last = proc
		} else {
			proc = last
		}
		f, dup := seen[proc]
		if !dup {
			seen[proc] = first{t, feats}
			continue
		}
		for name := range feats {
			if _, known := f.feats[name]; !known {
				return f.id, t, true
			}
		}
	}
	return "", "", false
}

// parseTargetIDFor is ParseTargetIDFeatures plus the processor and feature
// checks LLVM 22 makes for the triple when it tests compatibility (each
// side with its own triple): on an AMDGPU triple the processor
// must be an amdgcn processor of the table and every feature one it supports;
// on any other triple no features are allowed. An empty target ID never
// passes.
func parseTargetIDFor(t tripleInfo, tid string) (string, map[string]bool, bool) {
	proc, feats, ok := ParseTargetIDFeatures(tid)
	if !ok || proc == "" {
		return "", nil, false
	}
	var allowed []string
	switch t.arch {
	case "amdgcn":
		a, known := AMDGPUFeatures(proc)
		if !known {
			return "", nil, false
		}
		allowed = a
	case "r600":
		// No r600 processor is an OffloadArch, so none survives parsing.
		return "", nil, false
	}
	for name := range feats {
		if !slices.Contains(allowed, name) {
			return "", nil, false
		}
	}
	return proc, feats, true
}

// kindsCompatible reports whether a stored offload kind matches a requested
// one: equal kinds, hip with hipv4 either way (verified against 22.1.8), and
// with --hip-openmp-compatible any kind starting with "hip" (in any case)
// with openmp either way.
func kindsCompatible(stored, requested string, hipOpenMP bool) bool {
	if stored == requested {
		return true
	}
	if (stored == "hip" || stored == "hipv4") && (requested == "hip" || requested == "hipv4") {
		return true // always, with or without --hip-openmp-compatible
	}
	if hipOpenMP {
		hip := func(k string) bool { return len(k) >= 3 && strings.EqualFold(k[:3], "hip") }
		return hip(stored) && requested == "openmp" || stored == "openmp" && hip(requested)
	}
	return false
}

// Compatible reports whether a bundle stored under the ID stored can be
// extracted for the (standardised) requested ID, following LLVM 22: an
// exact match of kind, compatible triple and TargetID string (the only way
// an empty or malformed target ID matches), or compatible kinds (see
// kindsCompatible) and triples, target IDs that parseTargetIDFor accepts
// with the same processor, and every feature of the stored ID present in
// the requested one with the same sign (a feature the stored ID does not
// name matches anything: stored gfx906 suits a request for gfx906:xnack+,
// not the other way round). hipOpenMPCompatible is the
// bundler's --hip-openmp-compatible flag. The stored ID is read by
// ParseStored: one with a 3-field triple, which LLVM 22 rejects, matches
// what its standard form would.
func Compatible(stored, requested string, hipOpenMPCompatible bool) bool {
	c, ok1 := ParseStored(stored)
	r, ok2 := Parse(requested)
	if !ok1 || !ok2 {
		return false
	}
	ct, rt := parseTriple(c.Triple()), parseTriple(r.Triple())
	if !ct.compatibleWith(rt) {
		return false
	}
	if c.Kind == r.Kind && c.TargetID == r.TargetID {
		return true
	}
	if !kindsCompatible(c.Kind, r.Kind, hipOpenMPCompatible) {
		return false
	}
	cp, cf, ok1 := parseTargetIDFor(ct, c.TargetID)
	rp, rf, ok2 := parseTargetIDFor(rt, r.TargetID)
	if !ok1 || !ok2 || cp != rp || len(cf) > len(rf) {
		return false
	}
	for name, on := range cf {
		if ron, ok := rf[name]; !ok || ron != on {
			return false
		}
	}
	return true
}

// CommandLineConflict applies the conflict rule to command-line targets the
// way the bundler does: the target IDs are grouped by Key (kind plus raw
// triple), the keys are visited in byte order, and the first conflicting
// pair is returned as full strings "<key>-<TargetID>", ready for the message
// "Cannot bundle inputs with conflicting targets: 'a' and 'b'".
func CommandLineConflict(ids []ID) (a, b string, ok bool) {
	groups := map[string][]string{}
	for _, id := range ids {
		groups[id.Key()] = append(groups[id.Key()], id.TargetID)
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if x, y, found := ConflictingPair(groups[k]); found {
			return k + "-" + x, k + "-" + y, true
		}
	}
	return "", "", false
}
