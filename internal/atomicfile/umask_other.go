//go:build !unix

package atomicfile

import "os"

func umask() os.FileMode { return 0o022 }

func checkWritable(path string) error { return nil }
