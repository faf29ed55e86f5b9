// Package objcopy is how clang-offload-bundler 22 uses llvm-objcopy for
// object files (-type=o): where it finds the tool, the command lines it
// runs and prints for -###, the temporary files it hands it, and the output
// size llvm-objcopy cannot allocate. Package objfmt does the two edits
// itself for ELF hosts; the bundler (internal/tool/bundler) runs the real tool for
// the other object formats, and prints LLVM's messages either way.
package objcopy

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"

	"github.com/goffload/goffload/internal/format/objfmt"
)

// Name is the tool the bundler runs for object formats, and the argv[0] it
// passes.
const Name = "llvm-objcopy"

// ErrNotFound is Find's error; its text is LLVM's message.
var ErrNotFound = errors.New("unable to find 'llvm-objcopy' in path")

// Find finds llvm-objcopy as clang-offload-bundler does: in the directory
// of argv0 taken as a path string (so a symlink's own directory counts), or
// of the running executable when argv0 names no existing file, and
// otherwise in $PATH. The returned path is the directory as spelled joined
// with "llvm-objcopy".
func Find(argv0 string) (string, error) {
	exe := argv0
	if _, err := os.Stat(argv0); err != nil || argv0 == "" {
		if p, err := os.Executable(); err == nil {
			exe = p
		}
	}
	if i := strings.LastIndexByte(exe, '/'); i >= 0 {
		dir := exe[:i]
		if i == 0 {
			dir = "/"
		}
		p := strings.TrimSuffix(dir, "/") + "/" + Name
		if isExecutable(p) {
			return p, nil
		}
	}
	p, err := exec.LookPath(Name)
	if err != nil && !errors.Is(err, exec.ErrDot) {
		return "", ErrNotFound
	}
	return p, nil
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// Run runs the llvm-objcopy at path with args, its argv[0] "llvm-objcopy"
// as the bundler passes it, its output and messages going to stdout and
// stderr.
func Run(path string, args []string, stdout, stderr io.Writer) error {
	cmd := exec.Command(path, args...)
	cmd.Args[0] = Name
	cmd.Stdout, cmd.Stderr = stdout, stderr
	return cmd.Run()
}

// BundleArgs returns the arguments (without argv[0]) of the objcopy command
// that bundles, objfmt.AddSections' equivalent: for each section an
// --add-section and a --set-section-flags=...=readonly,exclude pair, then
// "--", the host input and the output. names are the full section names
// (objfmt.BundlePrefix + ID) and files the paths of their contents, in
// target order.
func BundleArgs(names, files []string, hostInput, output string) []string {
	args := make([]string, 0, 2*len(names)+3)
	for i, n := range names {
		args = append(args,
			"--add-section="+n+"="+files[i],
			"--set-section-flags="+n+"=readonly,exclude")
	}
	return append(args, "--", hostInput, output)
}

// StripArgs returns the arguments of the objcopy command that makes the
// host object from a fat object, objfmt.StripBundles' equivalent.
func StripArgs(input, output string) []string {
	return []string{"--regex", "--remove-section=" + objfmt.BundlePrefix + ".*", "--", input, output}
}

// FormatCommand formats a command as clang-offload-bundler's -### prints it
// (without the newline): the path and each argument in double quotes,
// separated by spaces, nothing escaped.
func FormatCommand(path string, args []string) string {
	var b strings.Builder
	b.WriteString(`"` + path + `"`)
	for _, a := range args {
		b.WriteString(` "` + a + `"`)
	}
	return b.String()
}

// TempDir is the folder LLVM puts temporary files in: $TMPDIR, $TMP, $TEMP
// or $TEMPDIR, the first that is set, else /tmp.
func TempDir() string {
	for _, v := range []string{"TMPDIR", "TMP", "TEMP", "TEMPDIR"} {
		if d := os.Getenv(v); d != "" {
			return d
		}
	}
	return "/tmp"
}

// TempName returns a path as the bundler names the files it hands to
// objcopy: clang-offload-bundler-XXXXXX.tmp (six random lowercase hex
// digits) in TempDir.
func TempName() string {
	var r [3]byte
	rand.Read(r[:])
	return strings.TrimSuffix(TempDir(), "/") + "/clang-offload-bundler-" + hex.EncodeToString(r[:]) + ".tmp"
}

// CreateTemp creates a new file named as TempName names them. On failure
// the error is an *os.PathError naming the path tried. The caller removes
// the file.
func CreateTemp() (*os.File, error) {
	var err error
	for range 100 {
		var f *os.File
		f, err = os.OpenFile(TempName(), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, err
		}
	}
	return nil, err
}

// CannotAllocate reports whether llvm-objcopy fails to allocate an output
// buffer of size bytes on this machine: Linux refuses a single allocation
// larger than memory and swap together (overcommit heuristics).
func CannotAllocate(size uint64) bool { return size >= unallocatable() }

// AllocMessage is llvm-objcopy's message (after "llvm-objcopy: error: ")
// when it cannot allocate the output of size bytes for input.
func AllocMessage(input string, size uint64) string {
	return fmt.Sprintf("'%s': failed to allocate memory buffer of %x bytes", input, size)
}

// unallocatable returns the smallest size CannotAllocate refuses: the
// MemTotal and SwapTotal of /proc/meminfo together, 1 TiB when unknown.
var unallocatable = sync.OnceValue(func() uint64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 1 << 40
	}
	var total uint64
	for _, line := range strings.Split(string(b), "\n") {
		var kb uint64
		if n, _ := fmt.Sscanf(line, "MemTotal: %d kB", &kb); n == 1 {
			total += kb << 10
		} else if n, _ := fmt.Sscanf(line, "SwapTotal: %d kB", &kb); n == 1 {
			total += kb << 10
		}
	}
	if total == 0 {
		return 1 << 40
	}
	return total
})
