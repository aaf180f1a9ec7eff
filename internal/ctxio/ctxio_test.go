package ctxio

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestReaderStopsWhenDone(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	r := Reader(ctx, strings.NewReader("abcdef"))
	p := make([]byte, 3)
	if n, err := r.Read(p); n != 3 || err != nil || string(p) != "abc" {
		t.Fatalf("Read = %d, %v (%q), want 3 bytes", n, err, p)
	}
	cancel()
	if n, err := r.Read(p); n != 0 || !errors.Is(err, context.Canceled) {
		t.Errorf("Read after cancel = %d, %v, want 0, context.Canceled", n, err)
	}
	if _, err := io.ReadAll(Reader(t.Context(), strings.NewReader("x"))); err != nil {
		t.Errorf("ReadAll with a live context = %v", err)
	}
}

// TestTee checks that Tee gives w what the reads return, and is rc
// itself without a writer.
func TestTee(t *testing.T) {
	rc := io.NopCloser(strings.NewReader("content"))
	if got := Tee(rc, nil); got != rc {
		t.Errorf("Tee(rc, nil) = %v, want rc", got)
	}
	var w bytes.Buffer
	data, err := io.ReadAll(Tee(rc, &w))
	if err != nil || string(data) != "content" || w.String() != "content" {
		t.Errorf("Tee read %q (%v) and wrote %q, want content both", data, err, w.String())
	}
}
