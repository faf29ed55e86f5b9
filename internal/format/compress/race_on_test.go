//go:build race

package compress

// raceEnabled: sync.Pool drops a quarter of what it is given under -race.
const raceEnabled = true
