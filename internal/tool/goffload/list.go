package goffloadcmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/goffload/goffload/inspect"
	"github.com/goffload/goffload/targetid"
	"github.com/goffload/goffload/tree"
	"github.com/urfave/cli/v2"
)

func listCommand() *cli.Command {
	return &cli.Command{
		Name:      "list",
		Usage:     "list every code object in each FILE",
		ArgsUsage: "FILE...",
		Description: `Prints one row per code object (and per host entry of a bundle): its
index, bundle ID or OffloadBinary target, size, file offset, the containers
it sits in and what its own header says; then a summary per GPU target.
Objects inside compressed bundles have no file offset of their own: the
CCOB's offset is shown with the object's offset inside the inflated
bundle (ccob@0x3000+0x1000). Rows are written as the file is read, so
memory does not grow with them: in a table of more than 1,024 rows a
column may widen part way down.

With --target, a GPU name that leaves a mode out (gfx90a) stands for the
GPU in any mode it may run in: code for gfx90a:xnack+, gfx90a:xnack- and
gfx90a fits, and gfx9-generic code fits a gfx906.

Exit status: 0 when every file was read whole, 1 when something was damaged
or, with --target, nothing fits, 2 for usage errors (an unknown target, a
folder or a file that cannot be opened).

Examples:
   goffload list libamdhip64.so librocblas.so
   goffload list --target gfx90a:xnack+ app       # what a gfx90a in xnack+ mode loads
   goffload list --json kernel.o | jq '.files[].objects[].target_id'
   goffload list --uri lib.so                      # llvm-readobj --offloading's lines`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print JSON (schema: testdata/goffload-list.schema.json)"},
			&cli.BoolFlag{Name: "uri", Usage: "print llvm-readobj --offloading's lines: ID<TAB>file://PATH#offset=N&size=N (uncompressed objects only)"},
			&cli.StringFlag{Name: "target", Usage: "list only code objects a GPU of this target can load, in any mode it may run in (gfx90a: xnack+, xnack- and any-mode builds; gfx90a:xnack+; amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-; a bundle ID)"},
			&cli.BoolFlag{Name: "no-headers", Usage: "do not read code object headers (only container headers)"},
			&cli.BoolFlag{Name: "duplicates", Usage: "also list code objects that are the same across targets or files (reads every byte)"},
		},
		Action:       runList,
		OnUsageError: commandUsageError,
	}
}

func runList(c *cli.Context) error {
	if c.NArg() == 0 {
		return usage("list: no input file (goffload list FILE...)")
	}
	target, err := oneTarget(c, "target")
	if err != nil {
		return err
	}
	opts := &inspect.Options{SkipHeaders: c.Bool("no-headers")}
	var out sink
	switch {
	case c.Bool("json"):
		out = newJSONSink(c.App.Writer)
	case c.Bool("uri"):
		out = newURISink(c.App.Writer)
	default:
		out = newTableSink(c.App.Writer, target)
	}
	// A target no GPU table knows may still be one the files hold code
	// for: only then are the listings read whole before anything is
	// written, to say which they hold (did you mean).
	hold := target != nil && target.Check(nil) != nil
	var held []*inspect.Listing // read whole, written after the target check
	var done []*inspect.Listing // written: their errors follow the output
	status := exitOK
	noCode := -1 // files without device code in the folders named
	devices := 0 // handed to the output
	// each hands one object of l to the output, if it fits the target;
	// holds gathers the targets l holds code for.
	each := func(l *inspect.Listing, o *inspect.Object, holds *heldSet) error {
		if o.Host || o.Nested > 0 {
			if target != nil {
				return nil
			}
		} else {
			holds.add(o)
			if target != nil && !target.Runs(o.Target()) {
				return nil
			}
			devices++
		}
		return out.object(l, o)
	}
	// finish ends l, whose rows are written: its errors follow the output.
	finish := func(l *inspect.Listing, holds *heldSet) error {
		done = append(done, l)
		if len(l.Errors) > 0 {
			status = max(status, exitProblem)
		}
		return out.end(l, holds.String())
	}
	// write writes a listing read whole.
	write := func(l *inspect.Listing) error {
		var holds heldSet
		for _, o := range l.Objects {
			if err := each(l, o, &holds); err != nil {
				return err
			}
		}
		return finish(l, &holds)
	}
	take := func(l *inspect.Listing) error {
		if hold {
			held = append(held, l)
			return nil
		}
		return write(l)
	}
	// What can fail as a whole fails before any row is written: the
	// folders named are walked first (their listings are read whole
	// anyway), and the duplicates looked for.
	folders := map[string][]*tree.File{}
	for _, name := range c.Args().Slice() {
		if fi, err := os.Stat(name); err == nil && fi.IsDir() {
			files, err := tree.Walk([]string{name}, &tree.Options{SkipHeaders: opts.SkipHeaders})
			if err != nil {
				return usage("%v", err)
			}
			folders[name] = files
		}
	}
	var dups []tree.Duplicate
	if c.Bool("duplicates") {
		if dups, err = tree.Duplicates(c.Args().Slice()); err != nil {
			return problem("--duplicates: %v", err)
		}
	}
	for _, name := range c.Args().Slice() {
		if files, ok := folders[name]; ok {
			noCode = max(noCode, 0)
			for _, f := range files {
				switch {
				case f.Err != nil:
					fmt.Fprintf(c.App.ErrWriter, "goffload: %v\n", f.Err)
					status = max(status, exitProblem)
				case len(f.Listing.Objects) == 0 && len(f.Listing.Errors) == 0:
					noCode++
				default:
					if err := take(f.Listing); err != nil {
						return problem("writing output: %v", err)
					}
				}
			}
			continue
		}
		f, size, err := openInput(name, c.App.Reader)
		if err != nil {
			var ee *exitError
			if errors.As(err, &ee) {
				status = max(status, ee.code)
			}
			fmt.Fprintf(c.App.ErrWriter, "goffload: %v\n", err)
			continue
		}
		defer f.Close()
		// Streamed: rows are written as the walk hands the objects on,
		// unless they must be read whole first: a wheel's, whose listing
		// is split by member (its Kind says so before the first object),
		// or all of them for a target to be checked.
		var holds heldSet
		var whole []*inspect.Object
		l, err := inspect.Walk(f, size, name, opts, func(l *inspect.Listing, o *inspect.Object) error {
			if hold || tree.SplitsMembers(l) {
				whole = append(whole, o)
				return nil
			}
			return each(l, o, &holds)
		})
		defer l.Close()
		if err == nil && (hold || tree.SplitsMembers(l)) {
			l.Objects = whole
			for _, m := range tree.SplitMembers(l) {
				if err = take(m); err != nil {
					break
				}
			}
			if err != nil {
				return problem("writing output: %v", err)
			}
			continue
		}
		if err == nil {
			err = finish(l, &holds)
		}
		if err != nil {
			return problem("writing output: %v", err)
		}
	}
	if hold {
		err := checkTargets("target", []targetid.Target{*target}, func() []string { return processors(held) })
		if err != nil {
			return err
		}
		for _, l := range held {
			if err := write(l); err != nil {
				return problem("writing output: %v", err)
			}
		}
	}
	// Nothing named could be read: the errors above say why, and an empty
	// table after them would only read as "no device code".
	quiet := len(done) == 0 && noCode < 0 && status != exitOK
	if err := out.close(noCode, dups, quiet); err != nil {
		return problem("writing output: %v", err)
	}
	if !c.Bool("json") {
		for _, l := range done {
			for _, e := range l.Errors {
				fmt.Fprintf(c.App.ErrWriter, "goffload: %v\n", e)
			}
		}
	}
	if target != nil && len(done) > 0 && devices == 0 {
		status = max(status, exitProblem)
		if c.Bool("json") || c.Bool("uri") {
			// The table says it; other outputs say it here.
			fmt.Fprintf(c.App.ErrWriter, "goffload: no code object for %s\n", target)
		}
	}
	if status != exitOK {
		return &exitError{status, ""}
	}
	return nil
}

// A heldSet gathers the target IDs a listing holds code for.
type heldSet struct{ ts []string }

func (h *heldSet) add(o *inspect.Object) {
	if t := targetOf(o); t != "" && !slices.Contains(h.ts, t) {
		h.ts = append(h.ts, t)
	}
}

// String says which target IDs a listing holds code for.
func (h *heldSet) String() string {
	if len(h.ts) == 0 {
		return "it holds no device code"
	}
	sort.Strings(h.ts)
	return "it holds code for " + strings.Join(h.ts, ", ")
}

// processors lists the processors the listings hold code for.
func processors(ls []*inspect.Listing) []string {
	var ps []string
	for _, l := range ls {
		for _, p := range l.Processors() {
			if !slices.Contains(ps, p) {
				ps = append(ps, p)
			}
		}
	}
	return ps
}

func targetOf(o *inspect.Object) string { return o.Target().TargetID }

// A row is one table row's cells, appended to one buffer that is reused
// from row to row: a table of 20,000 rows is written without a string
// per cell.
type row struct {
	b    []byte
	ends []int // where each cell ends in b
}

// next ends the cell being appended.
func (r *row) next() { r.ends = append(r.ends, len(r.b)) }

func (r *row) cell(j int) []byte {
	start := 0
	if j > 0 {
		start = r.ends[j-1]
	}
	return r.b[start:r.ends[j]]
}

// objectRow appends a code object's cells: index, ID, size, offset,
// container and code facts.
func objectRow(r *row, o *inspect.Object) {
	r.b = strconv.AppendInt(append(r.b, "  "...), int64(o.Index), 10)
	r.next()
	r.b = appendID(r.b, o)
	r.next()
	r.b = appendSize(r.b, o.Size)
	r.next()
	r.b = appendOffset(r.b, o)
	r.next()
	r.b = appendContainer(r.b, o)
	r.next()
	start := len(r.b)
	r.b = appendCode(r.b, o)
	for _, c := range r.b[start:] {
		if c < 0x20 || c >= 0x7f { // rare: a processor name from the file
			r.b = append(r.b[:start], inspect.Escape(string(r.b[start:]))...)
			break
		}
	}
	r.next()
}

// displayID is the object's ID for people: escaped (IDs come from the
// file), or its header's target ID when it has none.
func displayID(o *inspect.Object) string { return string(appendID(nil, o)) }

func appendID(b []byte, o *inspect.Object) []byte {
	if o.ID == "" {
		if t := o.Header().TargetID(); t != "" {
			return append(append(append(b, '('), inspect.Escape(t)...), ')')
		}
		return append(b, "(code object)"...)
	}
	return append(b, inspect.Escape(o.ID)...)
}

func appendOffset(b []byte, o *inspect.Object) []byte {
	switch {
	case o.Offset >= 0:
		return appendHex(b, o.Offset)
	case o.Compressed != nil && o.Compressed.Offset >= 0:
		b = append(b, strings.ToLower(o.Compressed.Format)...)
		b = appendHex(append(b, '@'), o.Compressed.Offset)
		return appendHex(append(b, '+'), o.Compressed.InnerOffset)
	}
	return append(b, '-')
}

// appendHex appends n as %#x writes it.
func appendHex(b []byte, n int64) []byte {
	if n < 0 {
		b, n = append(b, '-'), -n
	}
	return strconv.AppendInt(append(b, "0x"...), n, 16)
}

func appendContainer(b []byte, o *inspect.Object) []byte {
	b = append(b, inspect.Escape(o.Place())...)
	if c := o.Compressed; c != nil && c.Size > 0 {
		b = append(strconv.AppendFloat(append(b, " ("...), c.Ratio(), 'f', 1, 64), "×)"...)
	}
	return b
}

func appendCode(b []byte, o *inspect.Object) []byte {
	c := o.Code
	switch {
	case o.Nested > 0:
		return append(strconv.AppendInt(append(b, "OffloadBinary of "...), int64(o.Nested), 10), " image(s)"...)
	case c != nil && c.Format == "OffloadBinary":
		return append(b, "OffloadBinary magic, unreadable"...)
	}
	if c == nil {
		// An empty entry or a host entry has no facts in a CCOB either:
		// "-", as in a plain bundle.
		if o.Compressed != nil && o.Size > 0 && !o.Host {
			return append(b, "compressed"...)
		}
		return append(b, '-')
	}
	if c.Format != "ELF" {
		return append(b, c.Format...)
	}
	if c.Processor != "" {
		b = append(b, c.Processor...)
	} else {
		b = append(b, c.Machine...)
	}
	if c.CodeObjectVersion > 0 {
		b = strconv.AppendInt(append(b, " v"...), int64(c.CodeObjectVersion), 10)
	}
	if c.Xnack != "" && c.Xnack != "unsupported" {
		b = append(append(b, " xnack:"...), c.Xnack...)
	}
	if c.SRAMECC != "" && c.SRAMECC != "unsupported" {
		b = append(append(b, " sramecc:"...), c.SRAMECC...)
	}
	if c.Kernels >= 0 && c.Machine != "" && (c.Machine == "AMDGPU" || c.Machine == "CUDA") {
		b = strconv.AppendInt(append(b, ' '), int64(c.Kernels), 10)
		if c.Kernels == 1 {
			b = append(b, " kernel"...)
		} else {
			b = append(b, " kernels"...)
		}
	}
	return b
}

func sizeString(n int64) string { return string(appendSize(nil, n)) }

func appendSize(b []byte, n int64) []byte {
	switch {
	case n < 10*1024:
		return strconv.AppendInt(b, n, 10)
	case n < 10*1024*1024:
		return append(strconv.AppendFloat(b, float64(n)/1024, 'f', 1, 64), 'K')
	case n < 10*1024*1024*1024:
		return append(strconv.AppendFloat(b, float64(n)/(1024*1024), 'f', 1, 64), 'M')
	}
	return append(strconv.AppendFloat(b, float64(n)/(1024*1024*1024), 'f', 1, 64), 'G')
}

func writeWrappers(b *strings.Builder, l *inspect.Listing) {
	if len(l.Wrappers) == 0 {
		return
	}
	byMagic := map[string]int{}
	var odd []string
	for i, w := range l.Wrappers {
		byMagic[w.Magic]++
		if w.Note != "" && w.Magic == "HIPF" {
			odd = append(odd, fmt.Sprintf("    wrapper %d at %#x: %s", i, w.Offset, inspect.Escape(w.Note)))
		}
		if w.KpackRef != nil {
			odd = append(odd, fmt.Sprintf("    wrapper %d: kpack %q (TU %d), search paths %s", i, w.KpackRef.KernelName, w.Reserved, inspect.Escape(strings.Join(w.KpackRef.SearchPaths, ", "))))
		}
	}
	var parts []string
	for m, n := range byMagic {
		parts = append(parts, fmt.Sprintf("%d %s", n, m))
	}
	sort.Strings(parts)
	fmt.Fprintf(b, "  .hipFatBinSegment: %s wrapper(s)", strings.Join(parts, ", "))
	if len(odd) == 0 && byMagic["HIPF"] == len(l.Wrappers) {
		b.WriteString(", each pointing at a bundle start\n")
	} else {
		b.WriteString("\n")
	}
	for _, s := range odd {
		b.WriteString(s + "\n")
	}
}

// jsonOutput is the shape jsonSink writes piece by piece, as objects
// come (testdata/goffload-list.schema.json).
type jsonOutput struct {
	Files      []jsonFile       `json:"files"`
	Summary    jsonSummary      `json:"summary"`
	Duplicates *[]jsonDuplicate `json:"duplicates,omitempty"` // with --duplicates
}

type jsonFile struct {
	File     string        `json:"file"`
	Kind     string        `json:"kind"`
	Objects  []jsonObject  `json:"objects"`
	Wrappers []jsonWrapper `json:"wrappers"`
	Errors   []jsonError   `json:"errors"`
}

type jsonObject struct {
	Index      int               `json:"index"`
	Path       []string          `json:"path"`
	Container  string            `json:"container"`
	ID         string            `json:"id"`
	Host       bool              `json:"host"`
	Kind       string            `json:"kind"`
	Triple     string            `json:"triple"`
	TargetID   string            `json:"target_id"`
	Offset     *int64            `json:"offset"`
	Size       int64             `json:"size"`
	Compressed *jsonCompressed   `json:"compressed"`
	ImageKind  string            `json:"image_kind,omitempty"`
	Strings    map[string]string `json:"strings,omitempty"`
	Code       *jsonCode         `json:"code"`
	Nested     int               `json:"nested,omitempty"`
	Outer      *int              `json:"outer,omitempty"`
}

type jsonCompressed struct {
	Format           string  `json:"format"`
	Version          int     `json:"version"`
	Method           string  `json:"method,omitempty"`
	Offset           int64   `json:"offset"`
	Size             int64   `json:"size"`
	UncompressedSize int64   `json:"uncompressed_size"`
	InnerOffset      int64   `json:"inner_offset"`
	Ratio            float64 `json:"ratio"`
}

type jsonCode struct {
	Format            string `json:"format"`
	Machine           string `json:"machine"`
	Processor         string `json:"processor"`
	Xnack             string `json:"xnack"`
	SRAMECC           string `json:"sramecc"`
	CodeObjectVersion int    `json:"code_object_version"`
	Kernels           *int   `json:"kernels"`
}

type jsonWrapper struct {
	Offset      int64    `json:"offset"`
	Magic       string   `json:"magic"`
	Version     uint32   `json:"version"`
	Address     uint64   `json:"address"`
	Reserved    uint64   `json:"reserved"`
	Bundle      *int     `json:"bundle"`
	Note        string   `json:"note,omitempty"`
	KernelName  string   `json:"kpack_kernel_name,omitempty"`
	SearchPaths []string `json:"kpack_search_paths,omitempty"`
}

type jsonError struct {
	Message     string   `json:"message"`
	Path        []string `json:"path"`
	Offset      *int64   `json:"offset"`
	InnerOffset *int64   `json:"inner_offset"`
	Field       string   `json:"field"`
}

type jsonSummary struct {
	CodeObjects int                    `json:"code_objects"`
	Errors      int                    `json:"errors"`
	Targets     map[string]jsonPerTarg `json:"targets"`
	// NoCode counts, when folders were named, their files without
	// device code.
	NoCode *int `json:"files_without_device_code,omitempty"`
}

type jsonPerTarg struct {
	CodeObjects int   `json:"code_objects"`
	Bytes       int64 `json:"bytes"`
}

func ptr[T any](v T) *T { return &v }

// writeDuplicates prints the groups of code objects that are the same.
func writeDuplicates(w io.Writer, dups []tree.Duplicate) error {
	if len(dups) == 0 {
		_, err := fmt.Fprintln(w, "\nno duplicate code objects")
		return err
	}
	fmt.Fprintln(w, "\nDuplicates:")
	for _, d := range dups {
		what := "the same machine code, different headers (a generic build would serve)"
		if d.Identical {
			what = "identical bytes"
		}
		fmt.Fprintf(w, "  %d × %s, %s:\n", len(d.Copies), sizeString(d.Copies[0].Size), what)
		for _, c := range d.Copies {
			fmt.Fprintf(w, "    %s #%d %s\n", inspect.Escape(c.File), c.Index, inspect.Escape(c.ID))
		}
	}
	return nil
}

type jsonDuplicate struct {
	Identical bool          `json:"identical"`
	Copies    []jsonDupCopy `json:"copies"`
}

type jsonDupCopy struct {
	File     string `json:"file"`
	Index    int    `json:"index"`
	ID       string `json:"id"`
	TargetID string `json:"target_id"`
	Size     int64  `json:"size"`
}

// jsonString is s as JSON writes it (HTML characters escaped, as
// json.Encoder does).
func jsonString(s string) string {
	data, _ := json.Marshal(s)
	return string(data)
}

func jsonObjectOf(o *inspect.Object) jsonObject {
	j := jsonObject{Index: o.Index, Path: nonNil(o.Path), Container: o.Container, ID: o.ID, Host: o.Host,
		Kind: o.Kind, Triple: o.Triple, TargetID: targetOf(o), Size: o.Size, ImageKind: o.ImageKind, Nested: o.Nested}
	if o.Outer != nil {
		j.Outer = ptr(o.Outer.Index)
	}
	if o.Offset >= 0 {
		j.Offset = ptr(o.Offset)
	}
	if c := o.Compressed; c != nil {
		j.Compressed = &jsonCompressed{Format: c.Format, Version: c.Version, Method: c.Method, Offset: c.Offset,
			Size: c.Size, UncompressedSize: c.UncompressedSize, InnerOffset: c.InnerOffset, Ratio: c.Ratio()}
	}
	if len(o.Strings) > 0 {
		j.Strings = map[string]string{}
		for _, s := range o.Strings {
			j.Strings[s.Key] = s.Value
		}
	}
	if c := o.Code; c != nil {
		j.Code = &jsonCode{Format: c.Format, Machine: c.Machine, Processor: c.Processor, Xnack: c.Xnack,
			SRAMECC: c.SRAMECC, CodeObjectVersion: c.CodeObjectVersion}
		if c.Kernels >= 0 {
			j.Code.Kernels = ptr(c.Kernels)
		}
	}
	return j
}

func jsonWrapperOf(wr inspect.Wrapper) jsonWrapper {
	j := jsonWrapper{Offset: wr.Offset, Magic: wr.Magic, Version: wr.Version, Address: wr.Address, Reserved: wr.Reserved, Note: wr.Note}
	if wr.Bundle >= 0 {
		j.Bundle = ptr(wr.Bundle)
	}
	if wr.KpackRef != nil {
		j.KernelName, j.SearchPaths = wr.KpackRef.KernelName, wr.KpackRef.SearchPaths
	}
	return j
}

func jsonErrorOf(e *inspect.Error) jsonError {
	j := jsonError{Message: e.Error(), Path: nonNil(e.Path), Field: e.Field}
	if e.Offset >= 0 {
		j.Offset = ptr(e.Offset)
	}
	if e.InnerOffset >= 0 {
		j.InnerOffset = ptr(e.InnerOffset)
	}
	return j
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
