package install

import (
	"fmt"
	"net/url"
	"path/filepath"

	"github.com/agentadaptor/agentadaptor/internal/sourceloc"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/github"
	"github.com/agentadaptor/agentadaptor/source/oci"
	"github.com/agentadaptor/agentadaptor/trust"
)

// Origin returns the source text (any source Add takes, or one a lock
// file records) as the policy sees it: its kind, its canonical location,
// whether it is pinned, and how to show it. A local path is made
// absolute against the current folder, and a local path or file URL is
// its real path, links resolved (package source, rule 15). It reads
// nothing over the network.
func (in *Installer) Origin(text string) (source.Origin, error) {
	return in.policySource(text, "", true)
}

// policySource is Origin of a source typed (typed) or recorded with
// pin. source.Parse tells its kind, as it does for parseSource, and the
// kind's package reads it and gives its origin (oci.Reference.Origin,
// git.Source.Origin, github.Source.Origin), so that the policy judges
// the source that is read; the text is shown as typed, without
// credentials, and a pin recorded for it pins it.
func (in *Installer) policySource(text, pin string, typed bool) (source.Origin, error) {
	s := source.Origin{Display: redactURL(text), Pinned: pin != ""}
	spec, err := source.Parse(text)
	if err != nil {
		if _, _, derr := parseDownload(text); derr != nil {
			return s, derr // a download's own words
		}
		return s, fmt.Errorf("%w: %w", ErrInvalidSource, err)
	}
	var o source.Origin
	switch spec.Kind {
	case source.OCI:
		ref, err := oci.ParseReference(spec.Text)
		if err != nil {
			return s, fmt.Errorf("%w: %w", ErrInvalidSource, err)
		}
		if o, err = ref.Origin(); err != nil { // # Trust, rule 1: canonical, or refused
			return s, notCanonical(s, err)
		}
	case source.Git:
		src, err := parseGit(spec)
		if err != nil {
			return s, err
		}
		if u, err := url.Parse(src.URL); err == nil && sourceloc.HasDotSegment(u.Path) {
			return s, dotSegmentError(text)
		}
		if o, err = src.Origin(); err != nil { // a file URL at its real path (package source, rule 15)
			return s, notCanonical(s, err)
		}
	case source.URL, source.WebIndex:
		if indexURL, ok, err := webIndexURL(text); ok { // rule 15: as recorded
			text = indexURL
			if err != nil {
				return s, err
			}
		}
		u, want, err := parseDownload(text)
		if err != nil {
			return s, err
		}
		if sourceloc.HasDotSegment(u.Path) {
			return s, dotSegmentError(text)
		}
		loc, err := sourceloc.URLLocation(u.String())
		if err != nil {
			return s, notCanonical(s, err)
		}
		o = source.Origin{Kind: source.URL, Location: loc, Pinned: want != ""}
	case source.GitHub:
		rs, err := in.parseSource(text, typed)
		if err != nil {
			return s, err
		}
		if rs == nil {
			return in.localOrigin(s, text, typed) // a bare OWNER/REPO that is a local path
		}
		src, err := github.Parse(spec.Text)
		if err != nil {
			return s, fmt.Errorf("%w: %w", ErrInvalidSource, err)
		}
		if o, err = src.Origin(); err != nil { // an Enterprise address after github: is its host's (rule 13)
			return s, notCanonical(s, err)
		}
	default:
		return in.localOrigin(s, text, typed)
	}
	s.Kind, s.Location, s.Pinned = o.Kind, o.Location, s.Pinned || o.Pinned
	return s, nil
}

// localOrigin completes s, the origin of the local path text: absolute,
// against the current folder when typed, else against the project root
// as recorded, and its real path, whatever link names it (package
// source, rule 15).
func (in *Installer) localOrigin(s source.Origin, text string, typed bool) (source.Origin, error) {
	p := in.sourcePath(text)
	if typed && !filepath.IsAbs(text) {
		var err error
		if p, err = filepath.Abs(text); err != nil {
			return s, err
		}
	}
	s.Kind, s.Location = source.Local, filepath.ToSlash(sourceloc.RealPath(p))
	return s, nil
}

// notCanonical is the refusal of a source whose location cannot be made
// canonical (# Trust, rule 1): no rule of the policy can be matched
// against it, so none can be known not to apply.
func notCanonical(s source.Origin, err error) error {
	return fmt.Errorf("%s: %w: its location cannot be made canonical, so the policy's rules cannot be matched against it: %w", s.Display, trust.ErrRefused, err)
}

func dotSegmentError(text string) error {
	return fmt.Errorf("%s: %w: the source's path has a '..' segment; write it without (the policy is checked against the path as written)", redactURL(text), ErrInvalidSource)
}
