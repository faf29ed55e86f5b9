//go:build !unix

package atomicfile

import "os"

func umask() os.FileMode { return 0o022 }
