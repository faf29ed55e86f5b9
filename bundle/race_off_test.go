//go:build !race

package bundle_test

const raceEnabled = false
