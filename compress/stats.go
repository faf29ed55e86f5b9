package compress

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// FormatHash formats a hash value as LLVM's format_hex(v, 16) does: "0x"
// and lower-case hex digits, zero-padded to 16 characters including the
// "0x". So a value with a leading zero nibble prints 15 characters:
// 0x04b2008fd98c1dd4 is "0x4b2008fd98c1dd4".
func FormatHash(v uint64) string { return fmt.Sprintf("0x%014x", v) }

// FormatCompressStats returns the lines (without newlines) LLVM 22's
// --verbose prints after compressing: h is the written header, level the
// level as given (LLVM prints the raw value, e.g. 30, not the clamped one),
// compressedSize the payload size, elapsed the time spent compressing.
func FormatCompressStats(h Header, level int, compressedSize uint64, elapsed time.Duration) []string {
	total := h.TotalSize
	if h.Version < 2 {
		total = uint64(h.Len()) + compressedSize
	}
	rate := div(float64(h.UncompressedSize), float64(compressedSize))
	return []string{
		"Compressed bundle format version: " + strconv.Itoa(int(h.Version)),
		"Total file size (including headers): " + FormatCount(total) + " bytes",
		"Compression method used: " + h.Method.String(),
		"Compression level: " + strconv.Itoa(level),
		"Binary size before compression: " + FormatCount(h.UncompressedSize) + " bytes",
		"Binary size after compression: " + FormatCount(compressedSize) + " bytes",
		"Compression rate: " + formatFloat(rate),
		"Compression ratio: " + formatFloat(div(100, rate)) + "%",
		"Compression speed: " + formatFloat(speed(h.UncompressedSize, elapsed)) + " MB/s",
		"Truncated MD5 hash: " + FormatHash(h.HashValue()),
	}
}

// FormatDecompressStats returns the lines LLVM 22's --verbose prints after
// decompressing: h is the header read, payloadSize the number of bytes
// after the header (LLVM's "Size before decompression"), elapsed the time
// spent, and computed the hash of the data (HashValue view of MD5[0:8]).
// As in LLVM, the sizes and rate come from the header, not from the data.
func FormatDecompressStats(h Header, payloadSize uint64, elapsed time.Duration, computed uint64) []string {
	lines := []string{"Compressed bundle format version: " + strconv.Itoa(int(h.Version))}
	if h.Version >= 2 {
		lines = append(lines, "Total file size (from header): "+FormatCount(h.TotalSize)+" bytes")
	}
	rate := div(float64(h.UncompressedSize), float64(payloadSize))
	match := "No"
	if computed == h.HashValue() {
		match = "Yes"
	}
	return append(lines,
		"Decompression method: "+h.Method.String(),
		"Size before decompression: "+FormatCount(payloadSize)+" bytes",
		"Size after decompression: "+FormatCount(h.UncompressedSize)+" bytes",
		"Compression rate: "+formatFloat(rate),
		"Compression ratio: "+formatFloat(div(100, rate))+"%",
		"Decompression speed: "+formatFloat(speed(h.UncompressedSize, elapsed))+" MB/s",
		"Stored hash: "+FormatHash(h.HashValue()),
		"Recalculated hash: "+FormatHash(computed),
		"Hashes match: "+match,
	)
}

// FormatCount writes n in decimal with a comma every three digits.
func FormatCount(n uint64) string {
	s := strconv.FormatUint(n, 10)
	out := make([]byte, 0, len(s)+len(s)/3)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}

// negNaN is the NaN x86-64 produces for 0/0 (sign bit set), which glibc
// prints as "-nan".
var negNaN = math.Float64frombits(0xFFF8000000000000)

// div divides as IEEE 754 does on x86-64: 0/0 and NaN operands give the
// sign-set default NaN.
func div(a, b float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) || a == 0 && b == 0 {
		return negNaN
	}
	return a / b
}

func speed(n uint64, elapsed time.Duration) float64 {
	return div(float64(n)/(1024*1024), elapsed.Seconds())
}

// formatFloat is glibc's printf("%.2f").
func formatFloat(v float64) string {
	switch {
	case math.IsNaN(v):
		if math.Signbit(v) {
			return "-nan"
		}
		return "nan"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}
