//go:build race

package bundler_test

// raceEnabled: the race detector multiplies memory use (and the tool the
// tests build is built with it too).
const raceEnabled = true
