package github

import (
	"errors"
	"strings"
	"testing"
)

func TestInternalErrors(t *testing.T) {
	cause := errors.New("cause")
	if (&limitError{cause}).Error() != "cause" || (&downloadError{cause}).Error() != "cause" {
		t.Error("the marking errors do not read as their cause")
	}
	if !isCommit(strings.Repeat("A", 40)) || isCommit(strings.Repeat("g", 40)) || isCommit("abc") {
		t.Error("isCommit misreads")
	}
	if err := (Source{Owner: "o", Repo: "r", Path: "a/../b"}).check(); err == nil {
		t.Error("check of a path with .. succeeded")
	}
}
