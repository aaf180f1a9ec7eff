package prefilter

import (
	"bytes"
	"fmt"
	"go/format"
	"reflect"
	"slices"
	"strconv"
)

// The filter of fixed expressions, compiled into the program: [New]
// reads the expressions' syntax trees and builds the automaton, which
// takes milliseconds and a megabyte of memory at each start of a
// program that builds it. [GoSource] writes a filter as Go source, the
// value of each of its fields and its automaton's, as composite
// literals that the compiler lays out in the program's data: no code
// runs to make it, and nothing is allocated. The filter of the
// audit's line expressions is so compiled into this package
// (compiled.go, which go generate ./audit writes), and [Compiled]
// returns it, for the patterns it was built of.
//
// The source is written from the fields by reflection, so that a field
// added to the filter or its automaton, or changed, is written as it is
// with no change to the writer (a map, a function, a channel, an
// interface or a cycle of pointers it refuses; a value two pointers
// share it writes twice). compiled.go is built except with the build tag
// prefilter_regen, under which the package holds no compiled filter:
// when a change of the fields leaves compiled.go stale, and not
// compiling, go generate builds the package with the tag to write it
// again.

// compiledTag is the build tag under which compiled.go is left out.
const compiledTag = "prefilter_regen"

// Compiled returns the filter compiled into the package (compiled.go)
// when it is of the expressions of patterns (the filter New returns of
// them, built when the source was written): at no cost, as its data is
// the program's. It returns nil when the patterns differ, or the
// package was built without it: then build the filter with New.
//
// The filter returned is shared; as every filter, it is read only.
func Compiled(patterns []string) *Filter {
	if compiled == nil || !slices.Equal(compiled.patterns, patterns) {
		return nil
	}
	return compiled
}

// GoSource returns the source of a Go file of package prefilter that
// declares f as the variable compiled, gofmt-formatted, beginning with
// the comment lines of header (each line of it begins with //; the
// line that says the file is generated is one of them) and the build
// constraint that leaves it out under the tag prefilter_regen.
//
// It is a function, not a method, so that a program that does not
// call it (one that reads a filter's methods by reflection, as
// text/template does, keeps every exported method) does not link the
// Go formatter.
func GoSource(f *Filter, header string) ([]byte, error) {
	w := &goWriter{}
	w.b.WriteString(header)
	fmt.Fprintf(&w.b, "\n//go:build !%s\n\npackage prefilter\n\n", compiledTag)
	w.b.WriteString("// compiled is the filter of the expressions of its patterns, as New\n// builds it (see Compiled).\n")
	w.b.WriteString("var compiled = ")
	w.value(reflect.ValueOf(f), false)
	w.b.WriteString("\n")
	if w.err != nil {
		return nil, w.err
	}
	src, err := format.Source(w.b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("the Go source of the filter: %w", err)
	}
	return src, nil
}

// goWriter writes values as Go composite literals of package
// prefilter.
type goWriter struct {
	b   bytes.Buffer
	err error
	// writing: the pointers whose values are being written, to refuse
	// a cycle (a value that points to itself), which a literal cannot
	// hold
	writing map[uintptr]bool
}

// typeName returns the name of t in package prefilter.
func (w *goWriter) typeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Pointer:
		return "*" + w.typeName(t.Elem())
	case reflect.Slice:
		return "[]" + w.typeName(t.Elem())
	case reflect.Array:
		return "[" + strconv.Itoa(t.Len()) + "]" + w.typeName(t.Elem())
	}
	if t.Name() == "" || t.PkgPath() != "" && t.PkgPath() != reflect.TypeFor[Filter]().PkgPath() {
		w.fail("the type %s has no name in package prefilter", t)
	}
	return t.Name()
}

func (w *goWriter) fail(format string, args ...any) {
	if w.err == nil {
		w.err = fmt.Errorf("the Go source of the filter: "+format, args...)
	}
}

// value writes v; elided says its type is elided, as that of an
// element of a slice or array may be (&T too, of a pointer to T).
func (w *goWriter) value(v reflect.Value, elided bool) {
	t := v.Type()
	switch t.Kind() {
	case reflect.Bool:
		w.b.WriteString(strconv.FormatBool(v.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		w.b.WriteString(strconv.FormatInt(v.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		w.b.WriteString(strconv.FormatUint(v.Uint(), 10))
	case reflect.String:
		w.b.WriteString(strconv.Quote(v.String()))
	case reflect.Pointer:
		switch {
		case v.IsNil():
			w.b.WriteString("nil")
		case t.Elem().Kind() != reflect.Struct:
			w.fail("a pointer to %s", t.Elem())
		case w.writing[v.Pointer()]:
			w.fail("a %s that points to itself", t.Elem())
		default:
			if w.writing == nil {
				w.writing = map[uintptr]bool{}
			}
			w.writing[v.Pointer()] = true
			if !elided {
				w.b.WriteString("&")
			}
			w.value(v.Elem(), elided)
			delete(w.writing, v.Pointer())
		}
	case reflect.Struct:
		if !elided {
			w.b.WriteString(w.typeName(t))
		}
		// A struct of scalars is written on one line, any other a
		// field a line.
		inline := true
		for i := range t.NumField() {
			inline = inline && isScalar(t.Field(i).Type)
		}
		w.b.WriteString("{")
		sep := ""
		for i := range t.NumField() {
			if fv := v.Field(i); !fv.IsZero() {
				if !inline {
					sep = "\n"
				}
				fmt.Fprintf(&w.b, "%s%s: ", sep, t.Field(i).Name)
				w.value(fv, false)
				if inline {
					sep = ", "
				} else {
					w.b.WriteString(",")
				}
			}
		}
		if !inline {
			w.b.WriteString("\n")
		}
		w.b.WriteString("}")
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && v.IsNil() {
			w.b.WriteString("nil")
			return
		}
		if !elided {
			w.b.WriteString(w.typeName(t))
		}
		w.b.WriteString("{")
		// Scalars sixteen a line, each composite value on its own;
		// an array is written by index, its zero elements left out.
		scalar := isScalar(t.Elem())
		n := 0
		for i := range v.Len() {
			e := v.Index(i)
			if t.Kind() == reflect.Array && e.IsZero() {
				continue
			}
			if !scalar || n%16 == 0 {
				w.b.WriteString("\n")
			} else {
				w.b.WriteString(" ")
			}
			n++
			if t.Kind() == reflect.Array {
				fmt.Fprintf(&w.b, "%d: ", i)
			}
			w.value(e, true)
			w.b.WriteString(",")
		}
		if n > 0 {
			w.b.WriteString("\n")
		}
		w.b.WriteString("}")
	default:
		w.fail("a value of type %s", t)
	}
}

// isScalar reports whether t is a number, a bool or a string.
func isScalar(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Struct, reflect.Slice, reflect.Array, reflect.Map, reflect.Func, reflect.Chan, reflect.Interface, reflect.UnsafePointer:
		return false
	}
	return true
}
