package ctxio

import (
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
