package github_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/github"
)

func TestSearchCodeNeedsAToken(t *testing.T) {
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		w.Write([]byte(`{"items":[]}`))
	}))
	t.Cleanup(srv.Close)
	for _, tc := range []struct {
		token, from string
		wantErr     error
		wantAsked   int32
	}{
		{"", "", source.ErrAuthRequired, 0},
		{"tok", "WithToken", nil, 1},
	} {
		asked.Store(0)
		c, err := github.New(github.WithAPIURL(srv.URL), github.WithToken(tc.token))
		if err != nil {
			t.Fatal(err)
		}
		if c.TokenFrom() != tc.from {
			t.Errorf("TokenFrom() = %q, want %q", c.TokenFrom(), tc.from)
		}
		_, err = c.SearchCode(t.Context(), "pdf filename:SKILL.md", 10)
		if !errors.Is(err, tc.wantErr) || asked.Load() != tc.wantAsked {
			t.Errorf("SearchCode(token %q) = %v after %d requests, want %v after %d", tc.token, err, asked.Load(), tc.wantErr, tc.wantAsked)
		}
	}
	c, _ := github.New(github.WithAPIURL(srv.URL))
	if _, err := c.SearchRepositories(t.Context(), "", 10); !errors.Is(err, source.ErrInvalid) {
		t.Errorf("SearchRepositories(\"\") = %v, want %v", err, source.ErrInvalid)
	}
}
