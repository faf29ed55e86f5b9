//go:build !(linux && (amd64 || arm64 || riscv64 || loong64 || ppc64 || ppc64le || mips64 || mips64le))

package bigbuf

import "os"

const mapsFiles = false

func mapFile(dst []byte, f *os.File, off, n int64) (bool, error) { return false, nil }

type stamp struct{}

func stampOf(fi os.FileInfo) (stamp, bool) { return stamp{}, false }
