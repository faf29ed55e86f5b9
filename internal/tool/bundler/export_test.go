package bundler

// SetMaxStreamInput sets the cap on what is read from standard input, a
// pipe or a device, and returns a function restoring it.
func SetMaxStreamInput(n int64) (restore func()) {
	old := maxStreamInput
	maxStreamInput = n
	return func() { maxStreamInput = old }
}

// SetMaxTextBundle sets the cap on text bundles read into memory and
// returns a function restoring it.
func SetMaxTextBundle(n int64) (restore func()) {
	old := maxTextBundle
	maxTextBundle = n
	return func() { maxTextBundle = old }
}

// SetBeforeCompress sets a function to run between building a bundle in
// memory and compressing it, and returns a function removing it.
func SetBeforeCompress(f func()) (restore func()) {
	old := beforeCompress
	beforeCompress = f
	return func() { beforeCompress = old }
}
