package install

import (
	"fmt"
	"net/url"
	"path/filepath"

	"github.com/agentadaptor/agentadaptor/internal/redact"
	"github.com/agentadaptor/agentadaptor/internal/sourceloc"
	"github.com/agentadaptor/agentadaptor/source"
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
// pin. source.Parse tells its kind, once, as it does for parseSource;
// the kind's package reads it (parseGitHub, parseGit, as parseSource
// does) and gives its origin (oci.Reference.Origin, git.Source.Origin,
// github.Source.Origin; source.URLOrigin for a URL, and for a web index
// at its index's address), so that the policy judges the source that is
// read. A local path's origin is made here (localOrigin): a recorded
// path is relative to the installer's project root; the text is shown as typed, without credentials, and a pin
// recorded for it pins it.
func (in *Installer) policySource(text, pin string, typed bool) (source.Origin, error) {
	s := source.Origin{Display: redact.URL(text), Pinned: pin != ""}
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
		if spec.Kind == source.WebIndex { // rule 15: at its index's address, as recorded
			if text, _, err = webIndexURL(text); err != nil {
				return s, err
			}
		}
		u, _, err := parseDownload(text) // install's words for a malformed URL or fragment
		if err != nil {
			return s, err
		}
		if sourceloc.HasDotSegment(u.Path) {
			return s, dotSegmentError(text)
		}
		if o, err = source.URLOrigin(text); err != nil {
			return s, notCanonical(s, err)
		}
	case source.GitHub:
		src, ok, err := parseGitHub(text, spec, typed)
		if err != nil {
			return s, err
		}
		if !ok {
			return in.localOrigin(s, text, typed) // a bare OWNER/REPO that is a local path
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
	return &trust.RefusedError{Refusals: []trust.Refusal{{Source: s.Display, Origin: s, Err: err,
		Reason: fmt.Sprintf("its location cannot be made canonical, so the policy's rules cannot be matched against it: %v", err)}}}
}

func dotSegmentError(text string) error {
	return fmt.Errorf("%s: %w: the source's path has a '..' segment; write it without (the policy is checked against the path as written)", redact.URL(text), ErrInvalidSource)
}
