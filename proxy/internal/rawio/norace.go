//go:build !race

package rawio

const raceEnabled = false
