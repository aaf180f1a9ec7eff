package search

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/agentadaptor/agentadaptor/source/webindex"
)

// maxRedirects bounds the redirects followed to an index.
const maxRedirects = 10

// Index returns the [Backend] that searches the web index at addr: a
// site (https://HOST[/]) or the index file itself
// (https://HOST/.well-known/agent-skills/index.json), read with package
// webindex's rules and limits (rules 3 and 8). Its name is "index
// ADDR". Redirects are followed, at most 10, to https, or http on a
// loopback address. It fails with [ErrInvalidConfig] for an address that
// is not one.
func Index(addr string, opts ...IndexOption) (Backend, error) {
	indexURL, err := checkIndex(addr)
	if err != nil {
		return nil, fmt.Errorf("%q: %w: %v", addr, ErrInvalidConfig, err)
	}
	b := &indexBackend{addr: addr, url: indexURL, client: http.DefaultClient}
	for _, o := range opts {
		if o != nil {
			o(b)
		}
	}
	return b, nil
}

// IndexOption configures [Index].
type IndexOption func(*indexBackend)

// WithIndexClient sets the HTTP client that reads the index; its
// redirect policy is replaced by rule 8's. Default [http.DefaultClient];
// nil also means the default.
func WithIndexClient(c *http.Client) IndexOption {
	return func(b *indexBackend) {
		if c != nil {
			b.client = c
		}
	}
}

type indexBackend struct {
	addr, url string
	client    *http.Client
}

func (b *indexBackend) Name() string { return "index " + b.addr }

func (b *indexBackend) Search(ctx context.Context, query string, limit int) ([]Result, error) {
	ix, err := b.read(ctx)
	if err != nil {
		return nil, err
	}
	var out []Result
	for _, s := range ix.Skills {
		if len(out) == limit {
			break
		}
		if Matches(query, s.Name, s.Description, b.addr) {
			out = append(out, Result{Name: s.Name, Description: s.Description, Source: b.addr, Install: installCommand(b.addr, "--skill", s.Name), From: b.Name()})
		}
	}
	return out, nil
}

// read fetches and parses the index.
func (b *indexBackend) read(ctx context.Context) (*webindex.Index, error) {
	client := *b.client
	client.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) > maxRedirects {
			return fmt.Errorf("more than %d redirects", maxRedirects)
		}
		if req.URL.Scheme != "https" && (req.URL.Scheme != "http" || !loopbackHost(req.URL.Hostname())) {
			return errors.New("refused a redirect that leaves https")
		}
		return nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "agentadaptor")
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("GET %s: %w", b.url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s answered %s: check the address, or remove it from the indexes", b.url, resp.Status)
	}
	return webindex.Read(resp.Body, resp.Request.URL.String())
}
