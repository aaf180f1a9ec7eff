package install

// withChecker sets how skills are checked, for tests that need no real
// SKILL.md parsing. Default: the lenient SKILL.md rules of package
// skillmd, of which a few only the specification holds to (rule 4).
// Every problem a checker given here reports makes a skill unusable:
// AddRequest.Lenient lets none through.
func withChecker(c checker) Option { return func(o *config) { o.check, o.custom = c, c != nil } }
