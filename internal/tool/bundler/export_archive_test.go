package bundler

// SetMaxDecompressed sets the cap on a decompressed bundle (held in a
// temporary file) and returns a function restoring it.
func SetMaxDecompressed(n int64) (restore func()) {
	old := maxDecompressed
	maxDecompressed = n
	return func() { maxDecompressed = old }
}
