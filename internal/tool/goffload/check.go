package goffloadcmd

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/goffload/goffload/inspect"
	"github.com/goffload/goffload/internal/atomicfile"
	"github.com/goffload/goffload/targetid"
	"github.com/goffload/goffload/tree"
	"github.com/urfave/cli/v2"
)

func checkCommand() *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "say, file by file, whether GPUs have code to run in programs, libraries, folders and wheels",
		ArgsUsage: "PATH...",
		Description: `For each GPU named with --gpu, a verdict per file: exact (its processor's
code, built for its modes), compatible (its processor's code, built for any
mode it runs in), generic (only a generic family's code, gfx9-generic for a
gfx906), override (nothing fits, but a processor of the same generic family
is there: the HSA_OVERRIDE_GFX_VERSION setting that would run it is named;
AMD does not support it), none, or no-device-code. A GPU name that leaves
modes open (gfx90a) is judged in every mode it may run in, and the worst is
reported with its mode.

Programs and libraries named are followed through the libraries they load
(DT_NEEDED, as the dynamic loader finds them: RPATH/RUNPATH with $ORIGIN,
LD_LIBRARY_PATH, /etc/ld.so.conf, default folders; --sysroot); each library
reached is an entry saying who loads it, and a library that cannot be found
is reported as not-found. Folders and wheels are checked file by file.
Per-GPU data files are judged as one entry per folder: Tensile libraries
(rocBLAS, hipBLASLt: library/) and MIOpen kernel databases (*.kdb); a family
lacking, for one GPU, a kind of file it has for all its others is none for
that GPU, naming the missing file. A kpack'd binary (HIPK wrappers) is judged
through the KPAK archives its wrappers' search paths find: each translation
unit's code for the GPU must be there, and an empty archive is none.

Exit status: 0 when every file with device code is exact, compatible or
generic for every GPU; 1 when anything is override or none, or unreadable;
2 for usage errors.

Examples:
   goffload check --gpu gfx1031 /opt/rocm/lib/librocblas.so   # and what it loads
   goffload check --gpu auto ~/venv/lib/python3.12/site-packages/torch
   goffload check --gpu gfx90a,gfx942 --json dist/*.whl`,
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "gpu", Usage: "GPUs to check for (target IDs, rocminfo names; auto: this machine's, from the KFD topology)", Required: true},
			&cli.BoolFlag{Name: "json", Usage: "print JSON (schema: testdata/goffload-check.schema.json)"},
			&cli.StringFlag{Name: "sysroot", Usage: "look for needed libraries under this folder"},
			&cli.StringFlag{Name: "sysfs", Usage: "the sysfs root --gpu auto reads", Value: "/sys"},
			&cli.BoolFlag{Name: "all", Usage: "list files without device code too"},
		},
		Action:       runCheck,
		OnUsageError: commandUsageError,
	}
}

func runCheck(c *cli.Context) error {
	if c.NArg() == 0 {
		return usage("check: no path (goffload check --gpu GPU PATH...)")
	}
	var gpus []targetid.Target
	var err error
	if names := c.StringSlice("gpu"); len(names) == 1 && names[0] == "auto" {
		if gpus, err = tree.MachineGPUs(c.String("sysfs")); err != nil {
			return problem("--gpu auto: %s", strings.TrimPrefix(err.Error(), "tree: "))
		}
	} else if gpus, err = parseTargets("gpu", names...); err != nil {
		return err
	}
	if len(gpus) == 0 {
		return usage("--gpu: no GPU named")
	}
	paths := c.Args().Slice()
	shown := map[string]string{} // a temporary copy -> the name given
	for i, p := range paths {
		fi, err := os.Stat(p)
		if p == "-" || err == nil && !fi.IsDir() && !fi.Mode().IsRegular() {
			// Standard input, a pipe or a FIFO: read once (as list reads
			// it) into a temporary file, named as given in what is
			// printed.
			tmp, err := spoolNamed(p, c.App.Reader)
			if err != nil {
				return err
			}
			defer atomicfile.Discard(tmp)
			paths[i], shown[tmp] = tmp, p
			continue
		}
		if err != nil {
			return usage("%v", err)
		}
	}
	files, err := tree.Walk(paths, &tree.Options{TargetsOnly: true})
	if err != nil {
		return usage("%v", err)
	}
	if err := checkTargets("gpu", gpus, func() []string { return walkProcessors(files) }); err != nil {
		return err
	}
	// The libraries named programs and libraries load.
	var named []*tree.File
	for _, f := range files {
		if f.Path == f.Root && f.Listing != nil && strings.HasPrefix(f.Listing.Kind, "ELF") {
			named = append(named, f)
		}
	}
	ld := &tree.Loader{Sysroot: c.String("sysroot"), LibraryPath: filepath.SplitList(os.Getenv("LD_LIBRARY_PATH"))}
	files = append(files, ld.Closure(named, &tree.Options{TargetsOnly: true})...)
	// The temporary copies by the names given (after the closure, which
	// opens what it follows by path).
	for _, f := range files {
		if name, ok := shown[f.Path]; ok {
			f.Path, f.Root = name, name
		}
		if name, ok := shown[f.LoadedBy]; ok {
			f.LoadedBy = name
		}
	}
	results := tree.Check(files, gpus)
	if c.Bool("json") {
		err = writeCheckJSON(c.App.Writer, results, gpus)
	} else {
		err = writeCheckTable(c.App.Writer, results, gpus, c.Bool("all"))
	}
	if err != nil {
		return problem("writing output: %v", err)
	}
	for _, r := range results {
		if r.Verdict.Fails() || r.Verdict == tree.Unreadable {
			return &exitError{exitProblem, ""}
		}
	}
	return nil
}

// walkProcessors lists the processors the walked files hold code for.
func walkProcessors(files []*tree.File) []string {
	var ls []*inspect.Listing
	for _, f := range files {
		if f.Listing != nil {
			ls = append(ls, f.Listing)
		}
	}
	return processors(ls)
}

func gpuNames(gpus []targetid.Target) []string {
	s := make([]string, len(gpus))
	for i, g := range gpus {
		s[i] = g.String()
	}
	return s
}

// note says the details of a verdict for people.
func note(v tree.GPUVerdict) string {
	var parts []string
	if v.Mode != "" {
		parts = append(parts, "as "+v.Mode)
	}
	if v.Override != "" {
		parts = append(parts, fmt.Sprintf("%s would run its %s code (not supported by AMD)", v.Override, v.Runs))
	}
	if v.Missing != "" {
		parts = append(parts, "missing "+v.Missing)
	}
	return strings.Join(parts, "; ")
}

func writeCheckTable(w io.Writer, results []*tree.Result, gpus []targetid.Target, all bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	names := gpuNames(gpus)
	fmt.Fprintf(tw, "%s\tFILE\tNOTE\n", strings.ToUpper(strings.Join(names, "\t")))
	counts := map[tree.Verdict]int{}
	hidden := 0
	for _, r := range results {
		counts[r.Verdict]++
		if r.Verdict == tree.NoCode && !all {
			hidden++
			continue
		}
		var cols, notes []string
		for _, g := range names {
			v, ok := r.Verdicts[g]
			if !ok {
				cols = append(cols, string(r.Verdict))
				continue
			}
			cols = append(cols, string(v.Verdict))
			if n := note(v); n != "" {
				if len(names) > 1 {
					n = g + ": " + n
				}
				notes = append(notes, n)
			}
		}
		file := inspect.Escape(r.File)
		switch r.Family {
		case "":
		case "kpack":
			file += " (kpack'd: through its KPAK archives)"
		default:
			file += " (" + r.Family + " files)"
		}
		if r.LoadedBy != "" {
			notes = append(notes, "loaded by "+inspect.Escape(r.LoadedBy))
		}
		if r.Err != nil {
			notes = append(notes, inspect.Escape(r.Err.Error()))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", strings.Join(cols, "\t"), file, strings.Join(notes, "; "))
	}
	tw.Flush()
	var vs []string
	for _, v := range []tree.Verdict{tree.Exact, tree.Compatible, tree.Generic, tree.Override, tree.None, tree.NotFound, tree.Unreadable, tree.NoCode} {
		if counts[v] > 0 {
			vs = append(vs, fmt.Sprintf("%d %s", counts[v], v))
		}
	}
	if len(vs) == 0 {
		vs = []string{"no files found"}
	}
	fmt.Fprintf(w, "\n%d entries for %s: %s", len(results), strings.Join(names, ", "), strings.Join(vs, ", "))
	if hidden > 0 {
		fmt.Fprintf(w, " (files without device code not shown: --all)")
	}
	fmt.Fprintln(w)
	return nil
}

type jsonCheck struct {
	GPUs    []string         `json:"gpus"`
	Files   []jsonCheckEntry `json:"files"`
	Summary map[string]int   `json:"summary"`
}

type jsonVerdict struct {
	Verdict  string `json:"verdict"`
	Mode     string `json:"mode,omitempty"`
	Override string `json:"override,omitempty"`
	Runs     string `json:"runs,omitempty"`
	Missing  string `json:"missing,omitempty"`
}

type jsonCheckEntry struct {
	File string `json:"file"`
	jsonVerdict
	Verdicts map[string]jsonVerdict `json:"verdicts,omitempty"`
	Family   string                 `json:"family,omitempty"`
	LoadedBy string                 `json:"loaded_by,omitempty"`
	Targets  []string               `json:"targets"`
	Error    string                 `json:"error,omitempty"`
}

func writeCheckJSON(w io.Writer, results []*tree.Result, gpus []targetid.Target) error {
	out := jsonCheck{GPUs: gpuNames(gpus), Files: []jsonCheckEntry{}, Summary: map[string]int{}}
	for _, r := range results {
		e := jsonCheckEntry{File: r.File, Family: r.Family, LoadedBy: r.LoadedBy, Targets: r.Targets}
		if e.Targets == nil {
			e.Targets = []string{}
		}
		if r.Err != nil {
			e.Error = r.Err.Error()
		}
		e.Verdict = string(r.Verdict)
		conv := func(v tree.GPUVerdict) jsonVerdict {
			return jsonVerdict{Verdict: string(v.Verdict), Mode: v.Mode, Override: v.Override, Runs: v.Runs, Missing: v.Missing}
		}
		switch {
		case len(r.Verdicts) == 1:
			for _, v := range r.Verdicts {
				e.jsonVerdict = conv(v)
			}
		case len(r.Verdicts) > 1:
			e.Verdicts = map[string]jsonVerdict{}
			keys := make([]string, 0, len(r.Verdicts))
			for g := range r.Verdicts {
				keys = append(keys, g)
			}
			sort.Strings(keys)
			for _, g := range keys {
				e.Verdicts[g] = conv(r.Verdicts[g])
			}
		}
		out.Summary[string(r.Verdict)]++
		out.Files = append(out.Files, e)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
