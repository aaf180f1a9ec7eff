package cache

// Held returns the Store that a package skill Cache holds open (rule 8 of
// package skill's doc), opening it on first use. Package skill sets it when
// it is initialized, because only it can reach a Cache's store; its
// argument is a *skill.Cache, which this package, below skill, cannot
// name. It is for internal/skillcache, which looks trees up in the store
// that the Cache's own materializations use rather than opening a second
// one.
var Held func(skillCache any) (*Store, error)
