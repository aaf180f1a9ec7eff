//go:build prefilter_regen

package prefilter

// compiled is nil under the build tag prefilter_regen, which leaves
// compiled.go out, so that go generate can write it again when it no
// longer compiles (see Compiled).
var compiled *Filter
