package github

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/agentadaptor/agentadaptor/source"
)

// Limits of a search (rule 18).
const (
	// MaxSearchResults is the most results one search returns; GitHub
	// itself gives at most 1,000.
	MaxSearchResults = 1000
	// maxSearchPage caps the bytes of one page of results.
	maxSearchPage = 4 << 20
	// searchPerPage is the page size asked for: GitHub's largest.
	searchPerPage = 100
)

// Repository is one repository a search found.
type Repository struct {
	// Owner and Name are the repository's, as OWNER/REPO.
	Owner, Name string
	// Description is the repository's description, "" when it has none.
	Description string
	// Stars is its number of stars.
	Stars int
}

// File is one file a code search found.
type File struct {
	// Owner and Repo name the repository that holds the file.
	Owner, Repo string
	// Path is the file's path in the repository's default branch.
	Path string
	// RepoDescription is the repository's description, "" when it has none.
	RepoDescription string
}

// TokenFrom names where the token the Client sends came from
// ("GITHUB_TOKEN", "GH_TOKEN" or "WithToken"), never its value; "" when
// it sends none.
func (c *Client) TokenFrom() string { return c.tokenFrom }

// SearchRepositories asks GitHub's repository search for q (GET
// {api}/search/repositories, in GitHub's search syntax, e.g.
// "review topic:agent-skills") and returns at most limit repositories in
// GitHub's order, following its pages (rule 18).
func (c *Client) SearchRepositories(ctx context.Context, q string, limit int) ([]Repository, error) {
	type item struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Stars       int    `json:"stargazers_count"`
		Owner       struct {
			Login string `json:"login"`
		} `json:"owner"`
	}
	return searchItems(ctx, c, "repositories", q, limit, func(it item) (Repository, bool) {
		ok := (Source{Owner: it.Owner.Login, Repo: it.Name}).check() == nil
		return Repository{Owner: it.Owner.Login, Name: it.Name, Description: it.Description, Stars: it.Stars}, ok
	})
}

// SearchCode asks GitHub's code search for q (GET {api}/search/code, e.g.
// "review filename:SKILL.md") and returns at most limit files in
// GitHub's order, following its pages (rule 18). GitHub answers code
// searches only with a token: without one, SearchCode sends nothing and
// fails with [source.ErrAuthRequired].
func (c *Client) SearchCode(ctx context.Context, q string, limit int) ([]File, error) {
	if c.token == "" {
		return nil, fmt.Errorf("GitHub code search: %w: GitHub searches code only with a token; set GITHUB_TOKEN or GH_TOKEN", source.ErrAuthRequired)
	}
	type item struct {
		Path       string `json:"path"`
		Repository struct {
			Name        string `json:"name"`
			Description string `json:"description"`
			Owner       struct {
				Login string `json:"login"`
			} `json:"owner"`
		} `json:"repository"`
	}
	return searchItems(ctx, c, "code", q, limit, func(it item) (File, bool) {
		r := it.Repository
		ok := it.Path != "" && (Source{Owner: r.Owner.Login, Repo: r.Name, Path: it.Path}).check() == nil
		return File{Owner: r.Owner.Login, Repo: r.Name, Path: it.Path, RepoDescription: r.Description}, ok
	})
}

// searchItems runs a search of kind and returns at most limit of its
// items as conv turns them; an item conv refuses (an owner, repository
// or path that breaks rule 3) is left out.
func searchItems[I, R any](ctx context.Context, c *Client, kind, q string, limit int, conv func(I) (R, bool)) ([]R, error) {
	var out []R
	err := c.search(ctx, kind, q, limit, func(data []byte) (int, error) {
		var page struct {
			Items []I `json:"items"`
		}
		if err := json.Unmarshal(data, &page); err != nil {
			return 0, err
		}
		for _, it := range page.Items {
			if len(out) == limit {
				break
			}
			if r, ok := conv(it); ok {
				out = append(out, r)
			}
		}
		return len(page.Items), nil
	})
	return out, err
}

// search asks GET {api}/search/{kind}?q=q&per_page=100, then the pages
// its Link header names next, giving each page to read, until limit
// results, a page shorter than asked, or no next page.
func (c *Client) search(ctx context.Context, kind, q string, limit int, read func([]byte) (int, error)) error {
	what := "GitHub " + kind + " search"
	if q == "" {
		return fmt.Errorf("%s: %w: the query is empty", what, source.ErrInvalid)
	}
	limit = min(max(limit, 0), MaxSearchResults)
	u := *c.api
	u.Path += "/search/" + kind
	u.RawQuery = url.Values{"q": {q}, "per_page": {strconv.Itoa(min(limit, searchPerPage))}}.Encode()
	next, got := &u, 0
	for page := 1; next != nil && got < limit && page <= MaxSearchResults/searchPerPage; page++ {
		resp, err := c.get(ctx, next, "application/vnd.github+json")
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		data, err := c.searchPage(resp, what)
		if err != nil {
			return err
		}
		n, err := read(data)
		if err != nil {
			return fmt.Errorf("%s: %w: the answer is not GitHub's search JSON (is %s a GitHub API address?)", what, source.ErrNotServer, c.api.Redacted())
		}
		got += n
		next = nil
		if n >= min(limit, searchPerPage) {
			next = nextPage(resp.Header.Get("Link"), resp.Request.URL)
			if next != nil && !c.sameOrigin(next) {
				next = nil // a next page elsewhere is not GitHub's
			}
		}
	}
	return nil
}

// searchPage reads one page of results, at most maxSearchPage bytes,
// or turns an answer that is not 200 into an error (rule 13).
func (c *Client) searchPage(resp *http.Response, what string) ([]byte, error) {
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
		data, err := io.ReadAll(io.LimitReader(resp.Body, maxSearchPage+1))
		if err != nil {
			return nil, fmt.Errorf("%s: %s", what, c.clean(err.Error()))
		}
		if len(data) > maxSearchPage {
			return nil, fmt.Errorf("%s: %w: a page of results is larger than %d bytes", what, source.ErrNotServer, maxSearchPage)
		}
		return data, nil
	case http.StatusForbidden, http.StatusTooManyRequests:
		err := c.status(resp, Source{}, "search")
		var rl *RateLimitError
		if errors.As(err, &rl) {
			rl.Repo = ""
			return nil, fmt.Errorf("%s: %w", what, rl)
		}
		return nil, fmt.Errorf("%s: %w: access denied; check the token in %s", what, source.ErrAuthRequired, cmp.Or(c.tokenFrom, "GITHUB_TOKEN or GH_TOKEN"))
	case http.StatusUnauthorized:
		return nil, fmt.Errorf("%s: %w: the token in %s was refused%s", what, source.ErrAuthRequired, cmp.Or(c.tokenFrom, "GITHUB_TOKEN or GH_TOKEN"), c.message(resp))
	case http.StatusUnprocessableEntity:
		return nil, fmt.Errorf("%s: %w: GitHub refused the query%s; shorten or simplify it", what, source.ErrInvalid, c.message(resp))
	}
	return nil, fmt.Errorf("%s: GitHub answered %s%s; try again later", what, resp.Status, c.message(resp))
}

// nextPage is the address of rel="next" in a Link header, resolved
// against base; nil when there is none.
func nextPage(link string, base *url.URL) *url.URL {
	for part := range strings.SplitSeq(link, ",") {
		target, params, ok := strings.Cut(part, ";")
		if !ok || !strings.Contains(params, `rel="next"`) {
			continue
		}
		target = strings.TrimSpace(target)
		if !strings.HasPrefix(target, "<") || !strings.HasSuffix(target, ">") {
			return nil
		}
		u, err := base.Parse(target[1 : len(target)-1])
		if err != nil || !allowedScheme(u) {
			return nil
		}
		return u
	}
	return nil
}
