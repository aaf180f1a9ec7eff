//go:build !unix

package eval

import "errors"

func makeFIFO(string) error { return errors.New("no named pipes on this system") }
