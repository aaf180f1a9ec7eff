package oci

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"

	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/credentials"
	"oras.land/oras-go/v2/registry/remote/errcode"

	"github.com/agentadaptor/agentadaptor/internal/loopback"
	"github.com/agentadaptor/agentadaptor/source"
)

// repository returns a client for r's repository: plain HTTP for a
// loopback host, TLS otherwise, with credentials from c.
func (c *config) repository(r Reference) *remote.Repository {
	return &remote.Repository{
		Client:    c.authClient(),
		Reference: registry.Reference{Registry: r.Host, Repository: r.Repository},
		PlainHTTP: loopback.Host(r.Host),
	}
}

// authClient is c's HTTP client with the credentials of c.
func (c *config) authClient() *auth.Client {
	return &auth.Client{
		Client:     c.client,
		Credential: credentials.Credential(c.credentials),
		Cache:      auth.NewCache(),
	}
}

// classify turns an error of a registry operation on r into one that
// says what went wrong and what to do. When the operation failed in a
// way a registry would not, the host is asked for the registry API's
// base (/v2/) to tell a missing repository from a server that is no
// registry at all.
func (c *config) classify(ctx context.Context, r Reference, err error) error {
	if ctx.Err() != nil {
		return err
	}
	var resp *errcode.ErrorResponse
	if errors.Is(err, auth.ErrBasicCredentialNotFound) || errors.As(err, &resp) && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) {
		return fmt.Errorf("%w: %v (log in with \"docker login %s\"; credentials come from the Docker configuration and its helpers)", source.ErrAuthRequired, err, r.Host)
	}
	if perr := c.ping(ctx, r); perr != nil {
		return perr
	}
	if errors.Is(err, errdef.ErrNotFound) {
		return fmt.Errorf("%w (check the repository and the tag or digest)", source.ErrNotFound)
	}
	return err
}

// ping checks that r's host answers the registry API's base as a
// registry does: 200, or 401 when it wants credentials, with something
// other than a web page. It returns nil when it does, or when the host
// cannot be reached at all (the operation's own error says so better).
func (c *config) ping(ctx context.Context, r Reference) error {
	scheme := "https"
	if loopback.Host(r.Host) {
		scheme = "http"
	}
	url := scheme + "://" + r.Host + "/v2/"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusUnauthorized:
		return fmt.Errorf("%s: %w: GET %s answered %s: it is not an OCI registry (check the host name and port)", r.Host, source.ErrNotServer, url, resp.Status)
	case mt == "text/html":
		return fmt.Errorf("%s: %w: GET %s answered a web page: it is not an OCI registry (check the host name and port)", r.Host, source.ErrNotServer, url)
	}
	return nil
}
