//go:build !unix

package oci

import "errors"

func mkfifo(string) error { return errors.New("no named pipes here") }
