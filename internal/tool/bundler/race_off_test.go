//go:build !race

package bundler_test

const raceEnabled = false
