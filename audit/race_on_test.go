//go:build race

package audit_test

// raceDetector reports whether the tests run with the race detector,
// which makes the regular expressions of the equivalence test about
// fifteen times slower while it checks nothing there (the audit of one
// tree runs on one goroutine).
const raceDetector = true
