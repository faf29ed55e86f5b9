package tree

import (
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/goffload/goffload/targetid"
)

// Data-file families: folders of per-GPU files that libraries look up by
// the GPU's processor name, not through the runtime's target-ID rule.
// They are judged, and pruned, as one entry per folder:
//
//   - tensile: rocBLAS's and hipBLASLt's library/ (and library/<gfx>/):
//     TensileLibrary_<gfx>.co, TensileLibrary_<type>_<gfx>.co,
//     TensileLibrary_lazy_<gfx>.dat, Kernels.so-000-<gfx>[-xnack±].hsaco,
//     *_fallback_<gfx>.hsaco; catalogs (TensileLibrary.dat,
//     *_fallback.dat) serve every GPU and are always kept;
//   - miopen-kdb: MIOpen's kernel databases, <gfx><CUs>.kdb or
//     <gfx>_<CUs>.kdb.
type family struct {
	kind, dir string
	// files maps a kind of file (its name with the GPU's name replaced
	// by <gfx>) to the GPUs it is there for, each with its file.
	files map[string]map[string]string
}

// A gfx token in a file name: a processor, optionally -xnack+/-xnack-.
var gfxToken = regexp.MustCompile(`gfx[0-9]+[0-9a-f]*(?:-xnack[+-])?`)

var (
	tensileName = regexp.MustCompile(`^(TensileLibrary_.*\.(co|dat)|Kernels\.so-[0-9]+-.*\.hsaco|.*_fallback_.*\.hsaco)$`)
	kdbName     = regexp.MustCompile(`^(gfx[0-9]+[0-9a-f]*?)_?([0-9]+)\.kdb$`)
)

// familyOf says which family a file belongs to, and the GPU it is for
// ("" for a catalog that serves every GPU of the family).
func familyOf(path string) (kind, gpu, pattern string, ok bool) {
	base := filepath.Base(path)
	dir := filepath.Base(filepath.Dir(path))
	inLibrary := dir == "library" || filepath.Base(filepath.Dir(filepath.Dir(path))) == "library" && gfxToken.MatchString(dir)
	switch {
	case inLibrary && tensileName.MatchString(base):
		tok := gfxToken.FindString(base)
		if tok == "" {
			return "tensile", "", base, true
		}
		return "tensile", tok, strings.Replace(base, tok, "<gfx>", 1), true
	case inLibrary && (base == "TensileLibrary.dat" || strings.HasSuffix(base, "_fallback.dat")):
		return "tensile", "", base, true
	case kdbName.MatchString(base):
		m := kdbName.FindStringSubmatch(base)
		p := m[1]
		// gfx90878: the longest processor name LLVM knows that the
		// digits start with.
		for i := len(p); i > 4; i-- {
			if _, known := targetid.AMDGPUFeatures(p[:i]); known {
				p = p[:i]
				break
			}
		}
		return "miopen-kdb", p, "<gfx><CUs>.kdb", true
	}
	return "", "", "", false
}

// familyDir is the folder a family's file is judged under: library/ for
// library/<gfx>/ files.
func familyDir(path string) string {
	d := filepath.Dir(path)
	if gfxToken.MatchString(filepath.Base(d)) && filepath.Base(filepath.Dir(d)) == "library" {
		return filepath.Dir(d)
	}
	return d
}

// families splits files into data-file families and the rest.
func families(files []*File) ([]*family, []*File) {
	byDir := map[string]*family{}
	var rest []*File
	for _, f := range files {
		kind, gpu, pattern, ok := familyOf(f.Path)
		if !ok || f.NotFound {
			rest = append(rest, f)
			continue
		}
		dir := familyDir(f.Path)
		fam := byDir[kind+"\x00"+dir]
		if fam == nil {
			fam = &family{kind: kind, dir: dir, files: map[string]map[string]string{}}
			byDir[kind+"\x00"+dir] = fam
		}
		if gpu == "" {
			continue // a catalog
		}
		if fam.files[pattern] == nil {
			fam.files[pattern] = map[string]string{}
		}
		fam.files[pattern][gpu] = f.Path
	}
	var fams []*family
	for _, fam := range byDir {
		if len(fam.files) > 0 {
			fams = append(fams, fam)
		}
	}
	sort.Slice(fams, func(i, j int) bool { return fams[i].dir < fams[j].dir })
	return fams, rest
}

// processors lists the processors the family has files for.
func (fam *family) processors() []string {
	var ps []string
	for _, gpus := range fam.files {
		for g := range gpus {
			p, _, _ := strings.Cut(g, "-xnack")
			if !slices.Contains(ps, p) {
				ps = append(ps, p)
			}
		}
	}
	sort.Strings(ps)
	return ps
}

func (fam *family) targets() []string {
	var ts []string
	for _, gpus := range fam.files {
		for g := range gpus {
			t := strings.Replace(g, "-xnack", ":xnack", 1)
			if !slices.Contains(ts, t) {
				ts = append(ts, t)
			}
		}
	}
	sort.Strings(ts)
	return ts
}

// serves reports whether a family file for gpu token tok ("gfx90a",
// "gfx90a-xnack+") is one the GPU gpu (modes named) looks up.
func serves(tok string, gpu targetid.Target) bool {
	p, mode, hasMode := strings.Cut(tok, "-xnack")
	if p != gpu.Processor {
		return false
	}
	if !hasMode {
		return true
	}
	on, named := gpu.Features["xnack"]
	return !named || on == (mode == "+")
}

// judge judges the family for a GPU whose modes are all named: exact when
// every kind of file the family has for all its other GPUs is there for
// this one; none, naming the missing file, when a kind lacks; override or
// none when the processor has no file at all.
func (fam *family) judge(gpu targetid.Target) GPUVerdict {
	has := false
	var patterns []string
	for pat := range fam.files {
		patterns = append(patterns, pat)
	}
	sort.Strings(patterns)
	missing := ""
	for _, pat := range patterns {
		gpus := fam.files[pat]
		found := false
		for tok := range gpus {
			if serves(tok, gpu) {
				found = true
			}
		}
		has = has || found
		// A kind every other processor of the family has.
		everyOther := true
		for _, q := range fam.processors() {
			if q == gpu.Processor {
				continue
			}
			qHas := false
			for tok := range gpus {
				p, _, _ := strings.Cut(tok, "-xnack")
				qHas = qHas || p == q
			}
			everyOther = everyOther && qHas
		}
		if !found && everyOther && missing == "" {
			missing = strings.Replace(pat, "<gfx>", gpu.Processor, 1)
		}
	}
	switch {
	case !has:
		return override(gpu.Processor, fam.processors())
	case missing != "":
		return GPUVerdict{Verdict: None, Missing: missing}
	}
	return GPUVerdict{Verdict: Exact}
}
