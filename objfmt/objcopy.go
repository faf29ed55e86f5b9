package objfmt

import (
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// ObjcopyName is the tool the bundler runs for object formats, and the
// argv[0] it passes.
const ObjcopyName = "llvm-objcopy"

// ErrObjcopyNotFound is FindObjcopy's error; its text is LLVM's message.
var ErrObjcopyNotFound = errors.New("unable to find 'llvm-objcopy' in path")

// FindObjcopy finds llvm-objcopy as clang-offload-bundler does: in the
// directory of argv0 taken as a path string (so a symlink's own directory
// counts), or of the running executable when argv0 names no existing file,
// and otherwise in $PATH. The returned path is the directory as spelled
// joined with "llvm-objcopy".
func FindObjcopy(argv0 string) (string, error) {
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
		p := strings.TrimSuffix(dir, "/") + "/" + ObjcopyName
		if isExecutable(p) {
			return p, nil
		}
	}
	p, err := exec.LookPath(ObjcopyName)
	if err != nil && !errors.Is(err, exec.ErrDot) {
		return "", ErrObjcopyNotFound
	}
	return p, nil
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// BundleCommandArgs returns the arguments (without argv[0]) of the objcopy
// command that bundles: for each section an --add-section and a
// --set-section-flags=...=readonly,exclude pair, then "--", the host input
// and the output. names are the full section names (BundlePrefix + ID) and
// files the paths of their contents, in target order.
func BundleCommandArgs(names, files []string, hostInput, output string) []string {
	args := make([]string, 0, 2*len(names)+3)
	for i, n := range names {
		args = append(args,
			"--add-section="+n+"="+files[i],
			"--set-section-flags="+n+"=readonly,exclude")
	}
	return append(args, "--", hostInput, output)
}

// StripCommandArgs returns the arguments of the objcopy command that makes
// the host bundle from a fat object.
func StripCommandArgs(input, output string) []string {
	return []string{"--regex", "--remove-section=" + BundlePrefix + ".*", "--", input, output}
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

// CreateTemp creates a new file named clang-offload-bundler-XXXXXX.tmp (six
// random lowercase hex digits) in TempDir, as the bundler names the files it
// hands to objcopy. On failure the error is an *os.PathError naming the path
// tried. The caller removes the file.
func CreateTemp() (*os.File, error) {
	dir := TempDir()
	var err error
	for range 100 {
		var r [3]byte
		rand.Read(r[:])
		p := strings.TrimSuffix(dir, "/") + "/" + fmt.Sprintf("clang-offload-bundler-%02x%02x%02x.tmp", r[0], r[1], r[2])
		var f *os.File
		f, err = os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, err
		}
	}
	return nil, err
}
