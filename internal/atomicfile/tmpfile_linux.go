//go:build linux

package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"unsafe"
)

// oTmpfile is O_TMPFILE (__O_TMPFILE | O_DIRECTORY) on every Linux port Go
// supports.
const oTmpfile = 0o20000000 | syscall.O_DIRECTORY

// atFDCWD is AT_FDCWD (a variable: a negative constant cannot become a
// uintptr).
var atFDCWD = -100

const atLinkFollow = 0x400 // AT_SYMLINK_FOLLOW

// openUnnamed opens an unnamed file in dir (O_TMPFILE): it has no name, so
// a process killed while writing it leaves nothing behind. It reports false
// where the file system or the kernel cannot, or /proc, through which the
// file gets its name at commit, is not mounted. The file's Name is the
// name it will be given, for messages.
func openUnnamed(dir, base string) (*os.File, bool) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		return nil, false
	}
	fd, err := syscall.Open(dir, oTmpfile|syscall.O_WRONLY|syscall.O_CLOEXEC, 0o666)
	if err != nil {
		return nil, false
	}
	return os.NewFile(uintptr(fd), tempName(dir, base)), true
}

func tempName(dir, base string) string {
	var b [6]byte
	rand.Read(b[:])
	return filepath.Join(dir, "."+base+".tmp"+hex.EncodeToString(b[:]))
}

// linkUnnamed gives the unnamed file f a name beside its target and
// returns it: f.Name(), or another when that is taken.
func linkUnnamed(f *os.File) (string, error) {
	proc := "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))
	name := f.Name()
	for i := 0; ; i++ {
		err := linkat(proc, name)
		if err == syscall.EEXIST && i < 8 {
			name = tempName(filepath.Dir(name), filepath.Base(name))
			continue
		}
		if err != nil {
			return "", &os.LinkError{Op: "link", Old: proc, New: name, Err: err}
		}
		return name, nil
	}
}

func linkat(oldpath, newpath string) error {
	o, err := syscall.BytePtrFromString(oldpath)
	if err != nil {
		return err
	}
	n, err := syscall.BytePtrFromString(newpath)
	if err != nil {
		return err
	}
	_, _, errno := syscall.Syscall6(syscall.SYS_LINKAT, uintptr(atFDCWD), uintptr(unsafe.Pointer(o)),
		uintptr(atFDCWD), uintptr(unsafe.Pointer(n)), atLinkFollow, 0)
	if errno != 0 {
		return errno
	}
	return nil
}
