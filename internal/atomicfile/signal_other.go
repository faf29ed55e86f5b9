//go:build !unix

package atomicfile

// watchSignals does nothing where signals are not Unix's: pending
// temporary files stay behind a killed process.
func watchSignals() {}
