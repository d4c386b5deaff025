//go:build !race

package testutil

// RaceEnabled reports whether this test binary runs under the race
// detector; the binaries under test are then built with it too.
const RaceEnabled = false
