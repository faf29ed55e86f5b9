package tree

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/goffload/goffload/inspect"
	"github.com/goffload/goffload/targetid"
)

// A Verdict says what a GPU finds in a file, best first.
type Verdict string

// Verdicts, from best to worst, then those that are not about code.
const (
	Exact      Verdict = "exact"      // its processor's own code, built for its modes
	Compatible Verdict = "compatible" // its processor's code, built for any mode it runs in
	Generic    Verdict = "generic"    // only a generic family's code (gfx9-generic for a gfx906)
	Override   Verdict = "override"   // nothing fits, but a processor of its generic family is there
	None       Verdict = "none"       // nothing fits
	NoCode     Verdict = "no-device-code"
	NotFound   Verdict = "not-found"  // a needed library that could not be found
	Unreadable Verdict = "unreadable" // the file could not be read
)

// rank orders verdicts, worst highest; verdicts about no code rank 0.
func (v Verdict) rank() int {
	switch v {
	case Compatible:
		return 2
	case Generic:
		return 3
	case Override:
		return 4
	case None:
		return 5
	case Exact:
		return 1
	}
	return 0
}

// Fails reports whether the verdict makes check fail: code that does not
// run on the GPU as it is.
func (v Verdict) Fails() bool { return v == Override || v == None }

// A GPUVerdict is the verdict for one GPU.
type GPUVerdict struct {
	Verdict Verdict
	// Mode is the GPU in the mode that gave the verdict, when the GPU as
	// named left modes open ("gfx90a:sramecc+:xnack-").
	Mode string
	// Override, for Override, is the setting that makes the runtime run
	// the code of Runs ("HSA_OVERRIDE_GFX_VERSION=10.3.0").
	Override, Runs string
	// Missing names what is missing (a family's file).
	Missing string
}

// A Result is check's answer for one file, family or needed library.
type Result struct {
	File string
	// Family is "" for a file, else the kind of data-file family
	// ("tensile", "miopen-kdb") whose folder File is, or "kpack" for a
	// kpack'd binary judged through its KPAK archives.
	Family   string
	LoadedBy string
	// Verdict is the worst of Verdicts.
	Verdict  Verdict
	Verdicts map[string]GPUVerdict // by GPU as named
	// Targets lists the target IDs the file holds code for.
	Targets []string
	Err     error
}

// Check judges files for GPUs. Files of recognised data-file families
// (Tensile libraries, MIOpen kernel databases) are judged as one entry per
// family folder.
func Check(files []*File, gpus []targetid.Target) []*Result {
	var out []*Result
	fams, rest := families(files)
	cache := archives{}
	for _, f := range rest {
		r := &Result{File: f.Path, LoadedBy: f.LoadedBy, Verdicts: map[string]GPUVerdict{}}
		switch {
		case f.NotFound:
			r.Verdict = NotFound
		case f.Err != nil || f.Listing == nil:
			r.Verdict, r.Err = Unreadable, f.Err
		case len(kpackWrappers(f.Listing)) > 0:
			ws := kpackWrappers(f.Listing)
			for _, g := range gpus {
				r.Verdicts[g.String()] = worstMode(g, func(c targetid.Target) GPUVerdict { return judgeKpack(f.Path, ws, c, cache) })
			}
			r.Verdict, r.Family = worst(r.Verdicts), "kpack"
		case len(f.Listing.Objects) == 0 && len(f.Listing.Errors) == 0:
			r.Verdict = NoCode
		default:
			r.Targets = targetsOf(f.Listing)
			for _, g := range gpus {
				r.Verdicts[g.String()] = worstMode(g, func(c targetid.Target) GPUVerdict { return judgeListing(f.Listing, c) })
			}
			r.Verdict = worst(r.Verdicts)
			if len(f.Listing.Errors) > 0 {
				// Damage may hide code, or its lack: not a verdict to pass,
				// for any GPU.
				r.Verdict, r.Err = Unreadable, f.Listing.Errors[0]
				for g := range r.Verdicts {
					r.Verdicts[g] = GPUVerdict{Verdict: Unreadable}
				}
			}
		}
		out = append(out, r)
	}
	for _, fam := range fams {
		r := &Result{File: fam.dir, Family: fam.kind, Verdicts: map[string]GPUVerdict{}, Targets: fam.targets()}
		for _, g := range gpus {
			r.Verdicts[g.String()] = worstMode(g, fam.judge)
		}
		r.Verdict = worst(r.Verdicts)
		out = append(out, r)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].File < out[j].File })
	return out
}

func worst(vs map[string]GPUVerdict) Verdict {
	w := Verdict("")
	for _, v := range vs {
		if w == "" || v.Verdict.rank() > w.rank() {
			w = v.Verdict
		}
	}
	return w
}

// Modes returns the GPU in every mode it may run in: each mode g leaves
// open that its processor has, set both ways.
func Modes(g targetid.Target) []targetid.Target {
	feats, _ := targetid.AMDGPUFeatures(g.Processor)
	// The kind and triple a bundle ID names stay: each mode is judged by
	// the rule every command takes (targetid.Target.Loads).
	out := []targetid.Target{{Kind: g.Kind, Triple: g.Triple, Processor: g.Processor, Features: map[string]bool{}}}
	for n, on := range g.Features {
		out[0].Features[n] = on
	}
	for _, f := range feats {
		if _, named := g.Features[f]; named {
			continue
		}
		var next []targetid.Target
		for _, t := range out {
			for _, on := range []bool{true, false} {
				c := targetid.Target{Kind: t.Kind, Triple: t.Triple, Processor: t.Processor, Features: map[string]bool{f: on}}
				for n, v := range t.Features {
					c.Features[n] = v
				}
				next = append(next, c)
			}
		}
		out = next
	}
	return out
}

// worstMode judges g in each mode it may run in and keeps the worst.
func worstMode(g targetid.Target, judge func(targetid.Target) GPUVerdict) GPUVerdict {
	modes := Modes(g)
	var w GPUVerdict
	same := true
	for i, m := range modes {
		v := judge(m)
		v.Mode = m.TargetID()
		same = same && (i == 0 || v.Verdict == w.Verdict)
		if i == 0 || v.Verdict.rank() > w.Verdict.rank() {
			w = v
		}
	}
	if same || len(modes) == 1 {
		w.Mode = "" // the same in every mode
	}
	return w
}

// judgeListing judges a GPU whose modes are all named against every
// container of a file: the worst container decides.
func judgeListing(l *inspect.Listing, gpu targetid.Target) GPUVerdict {
	// Every container, host entries included: a bundle left with its
	// host entry only has no code for any GPU, and the runtime registers
	// it all the same.
	var order []string
	byContainer := map[string][]targetid.Code{}
	for _, o := range l.Objects {
		if o.Nested > 0 {
			continue
		}
		k := o.Unit()
		if o.Container == "offload image" {
			// OffloadBinaries side by side (a new-driver object's
			// section, a packager's file) hold one GPU's images each:
			// one without code for this GPU is not a fault, as a bundle
			// without it is. They are judged as one.
			k = strings.Join(offloadRun(o.Path), "\x00")
		}
		if _, seen := byContainer[k]; !seen {
			order = append(order, k)
			byContainer[k] = []targetid.Code{}
		}
		if !o.Host {
			byContainer[k] = append(byContainer[k], o.Target())
		}
	}
	if len(order) == 0 {
		return GPUVerdict{Verdict: None}
	}
	var w GPUVerdict
	for i, k := range order {
		v := judgeCodes(byContainer[k], gpu)
		if i == 0 || v.Verdict.rank() > w.Verdict.rank() {
			w = v
		}
	}
	return w
}

// offloadRun is the path of the run of OffloadBinaries an image's path
// leads through: the steps before the first binary.
func offloadRun(path []string) []string {
	if i := slices.IndexFunc(path, func(s string) bool { return strings.HasPrefix(s, "offload binary ") }); i >= 0 {
		return path[:i]
	}
	return path
}

// judgeCodes judges one container's code objects for a GPU.
func judgeCodes(codes []targetid.Code, gpu targetid.Target) GPUVerdict {
	best := 0
	var bestCode targetid.Code
	for _, c := range codes {
		if r, _ := gpu.Loads(c); r > best {
			best, bestCode = r, c
		}
	}
	switch {
	case best >= 100 && namesAllModes(bestCode.TargetID):
		return GPUVerdict{Verdict: Exact}
	case best >= 100:
		return GPUVerdict{Verdict: Compatible}
	case best > 0:
		return GPUVerdict{Verdict: Generic}
	}
	var procs []string
	for _, c := range codes {
		p, _, _ := strings.Cut(c.TargetID, ":")
		procs = append(procs, p)
	}
	return override(gpu.Processor, procs)
}

// override says whether, nothing fitting processor p, a processor of its
// generic family is among present, and which setting would run it.
func override(p string, present []string) GPUVerdict {
	fam := targetid.GenericFamily(p)
	var cands []string
	for _, q := range present {
		if q != p && fam != "" && targetid.GenericFamily(q) == fam && !slices.Contains(cands, q) {
			cands = append(cands, q)
		}
	}
	sort.Strings(cands)
	for _, q := range cands {
		if v, ok := GFXVersion(q); ok {
			return GPUVerdict{Verdict: Override, Override: "HSA_OVERRIDE_GFX_VERSION=" + v, Runs: q}
		}
	}
	return GPUVerdict{Verdict: None}
}

// namesAllModes reports whether a target ID names every mode its
// processor has (a processor without modes names them all).
func namesAllModes(tid string) bool {
	t, err := targetid.ParseTarget(tid)
	if err != nil {
		return false
	}
	feats, _ := targetid.AMDGPUFeatures(t.Processor)
	for _, f := range feats {
		if _, ok := t.Features[f]; !ok {
			return false
		}
	}
	return true
}

// GFXVersion returns a processor's version as HSA_OVERRIDE_GFX_VERSION
// takes it: major.minor.stepping, the last two digits of the name in hex
// ("gfx1030" → "10.3.0", "gfx90a" → "9.0.10").
func GFXVersion(proc string) (string, bool) {
	d, ok := strings.CutPrefix(proc, "gfx")
	if !ok || len(d) < 3 {
		return "", false
	}
	major, err1 := strconv.Atoi(d[:len(d)-2])
	minor, err2 := strconv.ParseUint(d[len(d)-2:len(d)-1], 16, 8)
	step, err3 := strconv.ParseUint(d[len(d)-1:], 16, 8)
	if err1 != nil || err2 != nil || err3 != nil {
		return "", false
	}
	return fmt.Sprintf("%d.%d.%d", major, minor, step), true
}

// targetsOf lists the target IDs a listing holds code for.
func targetsOf(l *inspect.Listing) []string {
	var ts []string
	for _, o := range l.Devices() {
		if t := o.Target().TargetID; t != "" && !slices.Contains(ts, t) {
			ts = append(ts, t)
		}
	}
	sort.Strings(ts)
	return ts
}
