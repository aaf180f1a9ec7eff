//go:build !linux

package process

// AdoptOrphans does nothing and returns nil: there is no child subreaper
// outside Linux (rule 11 is Linux only).
func AdoptOrphans() error { return nil }

// reapOrphans does nothing (rule 11 is Linux only).
func reapOrphans(prog int, since uint64, tag string) {}
