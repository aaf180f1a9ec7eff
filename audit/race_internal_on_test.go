//go:build race

package audit

// raceEnabled is raceDetector for the tests inside the package.
const raceEnabled = true
