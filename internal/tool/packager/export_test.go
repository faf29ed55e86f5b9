package packager

// SetMaxStreamInput sets the cap on what is read from standard input, a
// pipe or a device, and returns a function restoring it.
func SetMaxStreamInput(n int64) (restore func()) {
	old := maxStreamInput
	maxStreamInput = n
	return func() { maxStreamInput = old }
}
