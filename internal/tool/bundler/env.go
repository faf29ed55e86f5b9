package bundler

import (
	"fmt"
	"io"
	"strconv"
)

// envSettings is what the bundler's environment variables say. LLVM 22
// reads them once at start-up, in every mode (-list included), and prints
// each warning once, with no tool prefix:
//
//   - OFFLOAD_BUNDLER_IGNORE_ENV_VAR=1: none of the others is read and no
//     warning printed.
//   - OFFLOAD_BUNDLER_VERBOSE, OFFLOAD_BUNDLER_COMPRESS: when set, on if
//     the value is exactly "1" ("true" is off); -verbose and -compress on
//     the command line win.
//   - OFFLOAD_BUNDLER_COMPRESSION_LEVEL: a decimal int (optional '-');
//     anything else is ignored with a warning. -compression-level wins.
//   - COMPRESSED_BUNDLE_FORMAT_VERSION: an unsigned 16-bit decimal; 2 or 3
//     (leading zeros allowed) chooses the CCOB version, any other number
//     or a non-number keeps 3 with one of two warnings. Version 1 cannot
//     be written.
//
// GOFFLOAD_COMPRESSION_METHOD=zlib is ours (LLVM 22's command line cannot
// choose zlib) and is read whatever OFFLOAD_BUNDLER_IGNORE_ENV_VAR says.
type envSettings struct {
	verbose, compress *bool
	level             *int
	formatVersion     uint16 // 2 or 3
	method            string // "zstd" (default) or "zlib": goffload's GOFFLOAD_COMPRESSION_METHOD
}

// readEnv reads the variables once, printing LLVM's warnings (no prefix)
// for invalid values.
func readEnv(lookup func(string) (string, bool), stderr io.Writer) envSettings {
	s := envSettings{formatVersion: 3, method: "zstd"}
	if v, ok := lookup("GOFFLOAD_COMPRESSION_METHOD"); ok && v == "zlib" {
		s.method = "zlib"
	}
	if v, _ := lookup("OFFLOAD_BUNDLER_IGNORE_ENV_VAR"); v == "1" {
		return s
	}
	if v, ok := lookup("OFFLOAD_BUNDLER_VERBOSE"); ok {
		b := v == "1"
		s.verbose = &b
	}
	if v, ok := lookup("OFFLOAD_BUNDLER_COMPRESS"); ok {
		b := v == "1"
		s.compress = &b
	}
	if v, ok := lookup("OFFLOAD_BUNDLER_COMPRESSION_LEVEL"); ok {
		if n, ok := parseDecimalInt(v); ok {
			s.level = &n
		} else {
			fmt.Fprintf(stderr, "Warning: Invalid value for OFFLOAD_BUNDLER_COMPRESSION_LEVEL: %s. Ignoring it.\n", v)
		}
	}
	if v, ok := lookup("COMPRESSED_BUNDLE_FORMAT_VERSION"); ok {
		n, err := parseDecimalUint16(v)
		switch {
		case err != nil:
			fmt.Fprintf(stderr, "Warning: Invalid value for COMPRESSED_BUNDLE_FORMAT_VERSION: %s. Using default version 3.\n", v)
		case n == 2 || n == 3:
			s.formatVersion = n
		default:
			fmt.Fprintf(stderr, "Warning: Invalid value for COMPRESSED_BUNDLE_FORMAT_VERSION: %s. Valid values are 2 or 3. Using default version 3.\n", v)
		}
	}
	return s
}

// sym64ThresholdFromEnv returns the threshold LLVM 22's archive writer
// takes from the SYM64_THRESHOLD environment variable's value (llvm-ar and
// the offload bundler read it; set says whether it is set): a decimal
// number that fits in 64 bits, else the writer's default 1<<32.
func sym64ThresholdFromEnv(value string, set bool) uint64 {
	const def = 1 << 32
	if !set || value == "" || !allDigits(value) {
		return def
	}
	n, err := strconv.ParseUint(value, 10, 64)
	if err != nil {
		return def
	}
	return n
}

// parseDecimalInt accepts an optional '-' and decimal digits fitting an int32.
func parseDecimalInt(v string) (int, bool) {
	s := v
	if len(s) > 0 && s[0] == '-' {
		s = s[1:]
	}
	if s == "" || !allDigits(s) {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 32)
	return int(n), err == nil
}

func parseDecimalUint16(v string) (uint16, error) {
	if v == "" || !allDigits(v) {
		return 0, strconv.ErrSyntax
	}
	n, err := strconv.ParseUint(v, 10, 16)
	return uint16(n), err
}

func allDigits(s string) bool {
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// applyEnv merges the environment with the command line: an option given on
// the command line wins.
func (j *job) applyEnv() {
	if !j.CompressSet && j.env.compress != nil {
		j.Compress = *j.env.compress
	}
	if !j.VerboseSet && j.env.verbose != nil {
		j.Verbose = *j.env.verbose
	}
	if !j.LevelSet {
		j.Level = 3
		if j.env.level != nil {
			j.Level = *j.env.level
		}
	}
}
