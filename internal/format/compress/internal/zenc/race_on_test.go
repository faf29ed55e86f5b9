//go:build race

package zenc

const raceEnabled = true
