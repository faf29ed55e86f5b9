package bundler

import (
	"github.com/goffload/goffload/internal/format/compress"
	"math"
	"strconv"
	"time"
)

// formatCompressStats returns the lines (without newlines) LLVM 22's
// --verbose prints after compressing: h is the written header, level the
// level as given (LLVM prints the raw value, e.g. 30, not the clamped one),
// compressedSize the payload size, elapsed the time spent compressing.
func formatCompressStats(h compress.Header, level int, compressedSize uint64, elapsed time.Duration) []string {
	total := h.TotalSize
	if h.Version < 2 {
		total = uint64(h.Len()) + compressedSize
	}
	rate := statDiv(float64(h.UncompressedSize), float64(compressedSize))
	return []string{
		"Compressed bundle format version: " + strconv.Itoa(int(h.Version)),
		"Total file size (including headers): " + formatCount(total) + " bytes",
		"Compression method used: " + h.Method.String(),
		"Compression level: " + strconv.Itoa(level),
		"Binary size before compression: " + formatCount(h.UncompressedSize) + " bytes",
		"Binary size after compression: " + formatCount(compressedSize) + " bytes",
		"Compression rate: " + statFloat(rate),
		"Compression ratio: " + statFloat(statDiv(100, rate)) + "%",
		"Compression speed: " + statFloat(statSpeed(h.UncompressedSize, elapsed)) + " MB/s",
		"Truncated MD5 hash: " + compress.FormatHash(h.HashValue()),
	}
}

// formatDecompressStats returns the lines LLVM 22's --verbose prints after
// decompressing: h is the header read, payloadSize the number of bytes
// after the header (LLVM's "Size before decompression"), elapsed the time
// spent, and computed the hash of the data (HashValue view of MD5[0:8]).
// As in LLVM, the sizes and rate come from the header, not from the data.
func formatDecompressStats(h compress.Header, payloadSize uint64, elapsed time.Duration, computed uint64) []string {
	lines := []string{"Compressed bundle format version: " + strconv.Itoa(int(h.Version))}
	if h.Version >= 2 {
		lines = append(lines, "Total file size (from header): "+formatCount(h.TotalSize)+" bytes")
	}
	rate := statDiv(float64(h.UncompressedSize), float64(payloadSize))
	match := "No"
	if computed == h.HashValue() {
		match = "Yes"
	}
	return append(lines,
		"Decompression method: "+h.Method.String(),
		"Size before decompression: "+formatCount(payloadSize)+" bytes",
		"Size after decompression: "+formatCount(h.UncompressedSize)+" bytes",
		"Compression rate: "+statFloat(rate),
		"Compression ratio: "+statFloat(statDiv(100, rate))+"%",
		"Decompression speed: "+statFloat(statSpeed(h.UncompressedSize, elapsed))+" MB/s",
		"Stored hash: "+compress.FormatHash(h.HashValue()),
		"Recalculated hash: "+compress.FormatHash(computed),
		"Hashes match: "+match,
	)
}

// formatCount writes n in decimal with a comma every three digits.
func formatCount(n uint64) string {
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
func statDiv(a, b float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) || a == 0 && b == 0 {
		return negNaN
	}
	return a / b
}

func statSpeed(n uint64, elapsed time.Duration) float64 {
	return statDiv(float64(n)/(1024*1024), elapsed.Seconds())
}

// formatFloat is glibc's printf("%.2f").
func statFloat(v float64) string {
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
