package search

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/agentadaptor/agentadaptor/source/oci"
)

// Limits of a registry's search (rule 3).
const (
	// MaxRepositories is how many repositories of a registry's catalog
	// are read.
	MaxRepositories = 100
	// maxTags is how many tags of a repository are listed.
	maxTags = 1000
	// describeParallel is how many manifests are read at once.
	describeParallel = 4
)

// Registry returns the [Backend] that searches an OCI registry: entry is
// HOST (with an optional port), whose catalog is read, or HOST/REPO, one
// repository (rule 3). opts are package oci's: credentials, the cache,
// the HTTP client. Its name is "registry ENTRY". It fails with
// [ErrInvalidConfig] for an entry that is not a host or a repository.
func Registry(entry string, opts ...oci.Option) (Backend, error) {
	if err := checkRegistry(entry); err != nil {
		return nil, fmt.Errorf("%q: %w: %v", entry, ErrInvalidConfig, err)
	}
	host, repo, _ := strings.Cut(entry, "/")
	return &registryBackend{host: host, repo: repo, opts: opts}, nil
}

// checkRegistry applies rule 13 to a registry entry, with package oci's
// rules for a host and a repository.
func checkRegistry(entry string) error {
	ref := entry
	if !strings.Contains(entry, "/") {
		ref += "/r" // a host alone: any valid repository
	}
	if strings.Contains(entry, "@") || strings.HasSuffix(entry, "/") {
		return fmt.Errorf("write HOST, HOST:PORT or HOST/REPO, without a tag or digest")
	}
	if _, err := oci.ParseReference(oci.Scheme + ref + ":latest"); err != nil {
		return fmt.Errorf("write HOST, HOST:PORT or HOST/REPO: a valid host and a repository of lowercase letters, digits and . _ - separated by /")
	}
	return nil
}

type registryBackend struct {
	host, repo string
	opts       []oci.Option
}

func (b *registryBackend) Name() string {
	if b.repo != "" {
		return "registry " + b.host + "/" + b.repo
	}
	return "registry " + b.host
}

func (b *registryBackend) Search(ctx context.Context, query string, limit int) ([]Result, error) {
	repos := []string{b.repo}
	if b.repo == "" {
		var err error
		if repos, err = oci.Repositories(ctx, b.host, MaxRepositories, b.opts...); err != nil {
			return nil, err
		}
		slices.Sort(repos) // the registry's order need not be lexical (rule 3)
	}
	found := make([]*Result, len(repos))
	failed := make([]error, len(repos))
	g := new(errgroup.Group)
	g.SetLimit(describeParallel)
	for i, repo := range repos {
		g.Go(func() error {
			found[i], failed[i] = b.describe(ctx, repo, query)
			return nil
		})
	}
	g.Wait()
	var out []Result
	for _, r := range found {
		if r != nil && len(out) < limit {
			out = append(out, *r)
		}
	}
	var first error
	n := 0
	for _, err := range failed {
		if err != nil {
			if first == nil {
				first = err
			}
			n++
		}
	}
	switch {
	case n == 1:
		return out, first
	case n > 1:
		return out, fmt.Errorf("%d of %d repositories could not be read; the first: %w", n, len(repos), first)
	}
	return out, nil
}

// describe returns the entry of one repository when its manifest is a
// skill that matches query; nil otherwise.
func (b *registryBackend) describe(ctx context.Context, repo, query string) (*Result, error) {
	tags, err := oci.Tags(ctx, b.host, repo, maxTags, b.opts...)
	if err != nil || len(tags) == 0 {
		return nil, err
	}
	tag := tags[len(tags)-1]
	if slices.Contains(tags, "latest") {
		tag = "latest"
	}
	src := oci.Scheme + b.host + "/" + repo + ":" + tag
	d, err := oci.Describe(ctx, src, b.opts...)
	if err != nil {
		return nil, err
	}
	if !d.Skill || !Matches(query, d.Name, d.Description, src) {
		return nil, nil
	}
	return &Result{Name: d.Name, Description: d.Description, Source: src, Install: installCommand(src), From: b.Name()}, nil
}
