package tree

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/goffload/goffload/inspect"
	"github.com/goffload/goffload/targetid"
)

// kpack'd binaries (ROCm 7.14+) hold no device code: each HIPK wrapper
// names a KernelName and the search paths (relative to the binary, with
// @GFXARCH@ for the GPU's processor) of KPAK archives whose table of
// contents files translation unit N as "KernelName#N". A GPU is served
// when, for every wrapper, an archive found through its search paths
// holds that translation unit's code for it; an archive without any code
// object is a fault of its own (the runtime took such an empty archive
// over the valid one and every kernel failed: TheRock#7620).

// kpackWrappers returns a listing's HIPK wrappers.
func kpackWrappers(l *inspect.Listing) []inspect.Wrapper {
	var ws []inspect.Wrapper
	for _, w := range l.Wrappers {
		if w.KpackRef != nil {
			ws = append(ws, w)
		}
	}
	return ws
}

// archives caches the KPAK archives read, by path.
type archives map[string]*inspect.Listing

func (a archives) get(path string) *inspect.Listing {
	if l, ok := a[path]; ok {
		return l
	}
	l, err := inspect.ReadFile(path, &inspect.Options{SkipHeaders: true})
	if err != nil {
		a[path] = nil
		return nil
	}
	l.Close()
	if l.Kind != "KPAK archive" {
		l = nil
	}
	a[path] = l
	return l
}

// judgeKpack judges a kpack'd binary for a GPU whose modes are all named.
func judgeKpack(binary string, ws []inspect.Wrapper, gpu targetid.Target, cache archives) GPUVerdict {
	var w GPUVerdict
	for i, wr := range ws {
		v := judgeWrapper(binary, wr, gpu, cache)
		if i == 0 || v.Verdict.rank() > w.Verdict.rank() {
			w = v
		}
	}
	return w
}

func judgeWrapper(binary string, wr inspect.Wrapper, gpu targetid.Target, cache archives) GPUVerdict {
	key := fmt.Sprintf("%s#%d", wr.KpackRef.KernelName, wr.Reserved)
	var codes []targetid.Code
	var procs []string
	var found []string
	for _, sp := range wr.KpackRef.SearchPaths {
		p := strings.ReplaceAll(sp, "@GFXARCH@", gpu.Processor)
		if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(binary), p)
		}
		var paths []string
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			paths, _ = filepath.Glob(filepath.Join(p, "*.kpack"))
		} else if err == nil {
			paths = []string{p}
		}
		for _, ap := range paths {
			l := cache.get(ap)
			if l == nil {
				continue
			}
			found = append(found, ap)
			if len(l.Objects) == 0 {
				return GPUVerdict{Verdict: None, Missing: "code objects in " + ap + " (the archive is empty)"}
			}
			for _, o := range l.Objects {
				if o.ID != key {
					continue
				}
				codes = append(codes, targetid.Code{TargetID: o.TargetID})
				pr, _, _ := strings.Cut(o.TargetID, ":")
				procs = append(procs, pr)
			}
		}
	}
	if len(codes) == 0 {
		if len(found) == 0 {
			return GPUVerdict{Verdict: None, Missing: fmt.Sprintf("a kpack archive for %s (%s)", key, strings.Join(wr.KpackRef.SearchPaths, ", "))}
		}
		return GPUVerdict{Verdict: None, Missing: key + " in " + strings.Join(found, ", ")}
	}
	v := judgeCodes(codes, gpu)
	if v.Verdict == None && v.Missing == "" {
		v.Missing = key + " for " + gpu.Processor
	}
	return v
}
