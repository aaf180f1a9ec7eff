//go:build !race

package audit_test

// raceDetector: see race_on_test.go.
const raceDetector = false
