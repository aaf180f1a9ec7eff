package install

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/atomicfile"
	"github.com/agentadaptor/agentadaptor/internal/readfile"
	"github.com/agentadaptor/agentadaptor/internal/redact"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/trust"
)

// lockPolicy is what a lock file records of the policy: the pin of each
// file a policy file of the scope extends (# Policies that extend
// others, rule 2).
type lockPolicy struct {
	// Extends lists the files extended, each once, sorted by source.
	Extends []lockExtends `json:"extends,omitempty"`
}

// lockExtends is one file a policy file extends, as pinned.
type lockExtends struct {
	// Source is the source as the extends key names it, without a URL's
	// credentials (redact.URL): entries are matched on that text.
	Source string `json:"source"`
	// Pin is the immutable version it was read at: a commit, a manifest
	// digest, or the #sha256= of a URL.
	Pin string `json:"pin"`
	// Digest is the policy file's own SHA-256, sha256:HEX: what the cache
	// keeps it under and what a later fetch at Pin must give again.
	Digest string `json:"digest"`
}

// PolicyRequest says which policy [Installer.LoadPolicy] reads, and how
// it reads the files a policy file extends.
type PolicyRequest struct {
	// ProjectRoot is the project whose policy file applies besides the
	// user's; "" for the user's alone (a global install).
	ProjectRoot string
	// Frozen refuses to pin a file the lock file does not pin yet, as a
	// frozen sync refuses to change the lock file; a pinned file whose
	// copy the cache lacks is fetched at its pin, as a frozen sync
	// fetches a skill at its pin. Default: a file not pinned is fetched,
	// and its pin recorded.
	Frozen bool
	// Offline is Frozen reading no network (verify): a pinned file
	// whose copy the cache lacks is refused with [ErrSourceUnavailable],
	// advising a run that fetches it.
	Offline bool
	// ReadOnly writes no lock file (the commands that only read the
	// policy: policy check, policy export, run): a file the lock file
	// does not pin is fetched at what its source names now and kept in
	// the cache, and its pin is not recorded; the pins of files no
	// longer extended are kept.
	ReadOnly bool
}

// LoadPolicy reads the trust policy: the user's file, under the
// installer's home, and, unless req.ProjectRoot is "", the project's,
// under it; each with the files it extends, fetched with this
// installer's sources, pinned in the lock file beside it and kept in the
// skill cache for use offline (# Policies that extend others). It is
// policy.LoadWith with a fetcher; without extends it reads what
// policy.Load reads.
func (in *Installer) LoadPolicy(ctx context.Context, req PolicyRequest) (*policy.Policy, error) {
	projectRoot := req.ProjectRoot
	used := map[string][]string{} // by scope root: the sources its chain extends, pinned in its lock file
	p, err := policy.LoadWith(in.env.Home, projectRoot, policy.LoadOptions{Extends: func(er policy.ExtendsRequest) (policy.Extended, error) {
		root := projectRoot
		if er.User {
			root = in.env.Home
		}
		used[root] = append(used[root], redact.URL(er.Source))
		return in.extended(ctx, er.Trust, root, er, req)
	}})
	if err != nil || req.Frozen || req.Offline || req.ReadOnly {
		return p, err
	}
	for _, root := range []string{in.env.Home, projectRoot} {
		if root == "" {
			continue
		}
		if err := in.pruneExtends(ctx, root, used[root]); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// pruneExtends removes from the lock file under root the pins of the
// files its policy no longer extends (sources are those it extends).
func (in *Installer) pruneExtends(ctx context.Context, root string, sources []string) error {
	name := filepath.Join(root, ".agents", lockName)
	stale := func(l *lockFile) bool {
		return l.Policy != nil && slices.ContainsFunc(l.Policy.Extends, func(e lockExtends) bool { return !slices.Contains(sources, e.Source) })
	}
	if l, err := readLock(name); err != nil || !stale(l) {
		return nil // housekeeping: a lock file that does not read is the commands' to report
	}
	unlock, err := in.lockRoot(ctx, root, "policy")
	if err != nil {
		return err
	}
	defer unlock()
	l, err := readLock(name)
	if err != nil || !stale(l) {
		return nil
	}
	l.Policy.Extends = slices.DeleteFunc(l.Policy.Extends, func(e lockExtends) bool { return !slices.Contains(sources, e.Source) })
	if len(l.Policy.Extends) == 0 {
		l.Policy = nil
	}
	return l.write(name)
}

// extended returns the policy file req names, pinned in the lock file
// under root (# Policies that extend others), checked against t before
// it is fetched.
func (in *Installer) extended(ctx context.Context, t *policy.Policy, root string, req policy.ExtendsRequest, pr PolicyRequest) (policy.Extended, error) {
	shown := redact.URL(req.Source)
	lockFile := filepath.Join(root, ".agents", lockName)
	l, err := readLock(lockFile)
	if err != nil {
		return policy.Extended{}, err
	}
	var rec *lockExtends
	if l.Policy != nil {
		if i := slices.IndexFunc(l.Policy.Extends, func(e lockExtends) bool { return e.Source == shown }); i >= 0 {
			rec = &l.Policy.Extends[i]
		}
	}
	switch {
	case rec != nil:
		if err := checkExtendsPin(req.Source, *rec); err != nil {
			return policy.Extended{}, fmt.Errorf("%s: %w: %s %s; remove its entry under \"policy\" to pin it again", shown, ErrInvalidLock, lockFile, err)
		}
		if data, ok := in.cachedPolicy(rec.Digest); ok {
			return policy.Extended{Data: data, Source: shown, Pin: rec.Pin, Digest: rec.Digest}, nil
		}
		if pr.Offline {
			return policy.Extended{}, fmt.Errorf("%s at %s: %w: the cache holds no copy of the policy file the lock file %s pins, and this run reads no network (a verify); fetch it at its pin with agentskills sync (or agentskills policy show), then run it again", shown, shortPin(rec.Pin), ErrSourceUnavailable, lockFile)
		}
	case pr.Frozen || pr.Offline:
		return policy.Extended{}, fmt.Errorf("%s: %w: the lock file %s does not pin it, and this run records nothing new (a frozen sync, a verify); pin it with a run that may write the lock file (a sync without --frozen, or agentskills policy show)", shown, ErrDrift, lockFile)
	}
	pin := ""
	if rec != nil {
		pin = rec.Pin
	}
	data, pin, err := in.fetchPolicy(ctx, t, req.Source, pin)
	if err != nil {
		return policy.Extended{}, err
	}
	sum := sha256.Sum256(data)
	digest := "sha256:" + hex.EncodeToString(sum[:])
	if rec != nil && rec.Digest != digest {
		return policy.Extended{}, fmt.Errorf("%s at %s: %w: the policy file's SHA-256 is %s, not the %s the lock file %s records; refusing it (the content at the pin changed, or the lock file was edited: check with the team that publishes it, then remove its entry under \"policy\" to pin it again)",
			shown, shortPin(pin), source.ErrIntegrity, digest, rec.Digest, lockFile)
	}
	in.keepPolicy(digest, data)
	if rec == nil && !pr.ReadOnly {
		if err := in.recordExtends(ctx, root, lockExtends{Source: shown, Pin: pin, Digest: digest}); err != nil {
			return policy.Extended{}, err
		}
	}
	return policy.Extended{Data: data, Source: shown, Pin: pin, Digest: digest}, nil
}

// checkExtendsPin checks the form of what the lock file records of the
// file text names (# Policies that extend others, rule 2): a pin that is
// a commit (hex) for a git or GitHub source, a manifest digest for an
// oci:// one, the URL's own #sha256= for a URL; a digest sha256:HEX. A
// lock file is the project's, as cloned: what it records is shown and
// fetched only once it has that form.
func checkExtendsPin(text string, rec lockExtends) error {
	isHex := func(s string, n ...int) bool {
		return slices.Contains(n, len(s)) && strings.Trim(s, "0123456789abcdef") == ""
	}
	if d, ok := strings.CutPrefix(rec.Digest, "sha256:"); !ok || !isHex(d, 64) {
		return fmt.Errorf("records the digest %q, not sha256: and 64 hexadecimal digits", rec.Digest)
	}
	spec, err := source.Parse(text)
	if err != nil {
		return err
	}
	ok := false
	switch spec.Kind {
	case source.URL:
		ok = rec.Pin == "sha256:"+strings.ToLower(spec.SHA256)
	case source.OCI:
		algo, d, _ := strings.Cut(rec.Pin, ":")
		ok = (algo == "sha256" && isHex(d, 64)) || (algo == "sha512" && isHex(d, 128))
	case source.Git, source.GitHub:
		ok = isHex(rec.Pin, 40, 64)
	}
	if !ok {
		return fmt.Errorf("records the pin %q, which is not what a %s source is pinned at (a commit, a manifest digest, the URL's #sha256=)", rec.Pin, spec.Kind)
	}
	return nil
}

// policyCacheDir is the folder of the skill cache that keeps fetched
// policy files, each named by its digest.
func (in *Installer) policyCacheDir() string {
	return filepath.Join(in.cache.Root(), "policies")
}

// cachedPolicy returns the kept policy file of digest, when the cache
// holds one whose content has that digest.
func (in *Installer) cachedPolicy(digest string) ([]byte, bool) {
	hexSum, ok := strings.CutPrefix(digest, "sha256:")
	if !ok || len(hexSum) != 64 || strings.Trim(hexSum, "0123456789abcdef") != "" {
		return nil, false
	}
	data, err := readfile.Small(filepath.Join(in.policyCacheDir(), hexSum+".yaml"), policy.MaxFileSize)
	if err != nil {
		return nil, false
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != hexSum {
		return nil, false // altered in the cache: fetched again
	}
	return data, true
}

// keepPolicy keeps a fetched policy file in the cache; a failure costs
// a fetch next time, nothing more.
func (in *Installer) keepPolicy(digest string, data []byte) {
	dir := in.policyCacheDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	_ = atomicfile.Write(filepath.Join(dir, strings.TrimPrefix(digest, "sha256:")+".yaml"), data, 0o644)
}

// recordExtends adds e to the lock file under root, under the scope's
// file lock.
func (in *Installer) recordExtends(ctx context.Context, root string, e lockExtends) error {
	unlock, err := in.lockRoot(ctx, root, "policy")
	if err != nil {
		return err
	}
	defer unlock()
	name := filepath.Join(root, ".agents", lockName)
	l, err := readLock(name)
	if err != nil {
		return err
	}
	if l.Policy == nil {
		l.Policy = &lockPolicy{}
	}
	l.Policy.Extends = slices.DeleteFunc(l.Policy.Extends, func(x lockExtends) bool { return x.Source == e.Source })
	l.Policy.Extends = append(l.Policy.Extends, e)
	slices.SortFunc(l.Policy.Extends, func(a, b lockExtends) int { return strings.Compare(a.Source, b.Source) })
	return l.write(name)
}

// fetchPolicy fetches the policy file text names, at pin ("" resolves
// its reference), after checking the source against p, the user's word
// (# Policies that extend others, rule 3), and returns it and its pin.
// Each redirect of the fetch is checked against p too.
func (in *Installer) fetchPolicy(ctx context.Context, p *policy.Policy, text, pin string) ([]byte, string, error) {
	shown := redact.URL(text)
	t := &Trust{checker: trust.NewChecker(p)}
	// The installer that fetches: this one, enforcing p, so that the
	// redirects of a download (policyRedirects) and of a git repository
	// (gitRedirects) are checked as an add's are.
	fin := *in
	fin.trust = t
	spec, err := source.Parse(text)
	if err != nil {
		return nil, "", fmt.Errorf("%w: %w", ErrInvalidSource, err)
	}
	switch spec.Kind {
	case source.URL:
		if spec.SHA256 == "" {
			return nil, "", fmt.Errorf("%s: %w: a policy extended from a URL names its content's SHA-256 (URL#sha256=HEX), so that the file cannot change under the policies that extend it", shown, ErrInvalidSource)
		}
		if _, err := in.checkSourceBy(t, text, "", true, nil); err != nil {
			return nil, "", err
		}
		// Read no further than a policy file's size: the refusal is known
		// at the first byte past it.
		file, remove, _, err := fin.downloadAtMost(ctx, text, validators{}, policy.MaxFileSize)
		if err != nil {
			return nil, "", err
		}
		defer remove()
		data, err := readfile.Small(file, policy.MaxFileSize)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w: %w", shown, ErrInvalidSource, err)
		}
		return data, "sha256:" + strings.ToLower(spec.SHA256), nil
	case source.OCI, source.Git, source.GitHub:
	default:
		return nil, "", fmt.Errorf("%s: %w: a policy file extends a published source (git+https://...#ref=REF&path=FILE, github:OWNER/REPO/FILE@REF, oci://HOST/REPO:TAG, https://...#sha256=HEX), not a %s source", shown, ErrInvalidSource, spec.Kind)
	}
	text, file := policyFileOf(text, spec.Kind)
	rs, err := fin.parseSource(text, true)
	if err != nil {
		return nil, "", err
	}
	if rs == nil {
		return nil, "", fmt.Errorf("%s: %w: not a published source", shown, ErrInvalidSource)
	}
	st, err := in.checkSourceBy(t, text, pin, true, nil)
	if err != nil {
		return nil, "", err
	}
	tmp, err := os.MkdirTemp("", "agentskills-policy-*")
	if err != nil {
		return nil, "", err
	}
	defer os.RemoveAll(tmp)
	name := filepath.Join(tmp, "archive")
	pin, base, err := in.fetchRemote(ctx, rs, shown, pin, "", name, st, nil)
	if err != nil {
		return nil, "", sourceError(err)
	}
	data, err := policyFromArchive(name, path.Join(base, file))
	if err != nil {
		return nil, "", fmt.Errorf("%s at %s: %w: %w", shown, shortPin(pin), ErrInvalidSource, err)
	}
	return data, pin, nil
}

// policyFileOf splits a git source whose path= names a file (its last
// element ends in .yaml or .yml) into the source of its folder and the
// file's name: git reads folders.
func policyFileOf(text string, kind source.Kind) (string, string) {
	if kind != source.Git {
		return text, ""
	}
	head, frag, ok := strings.Cut(text, "#")
	if !ok {
		return text, ""
	}
	parts := strings.Split(frag, "&")
	for i, part := range parts {
		p, ok := strings.CutPrefix(part, "path=")
		if !ok || !(strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
			continue
		}
		dir, file := path.Split(p)
		if dir = strings.TrimSuffix(dir, "/"); dir == "" {
			parts = slices.Delete(parts, i, i+1)
		} else {
			parts[i] = "path=" + dir
		}
		if len(parts) == 0 {
			return head, file
		}
		return head + "#" + strings.Join(parts, "&"), file
	}
	return text, ""
}

// policyFromArchive reads the policy file of an archive (tar, or tar
// compressed with gzip): the file at sub when sub names a file, else
// sub/agentskills.policy.yaml.
func policyFromArchive(name, sub string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	head := make([]byte, 2)
	if _, err := io.ReadFull(f, head); err == nil && head[0] == 0x1f && head[1] == 0x8b {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", skill.ErrArchiveFormat, err)
		}
		defer zr.Close()
		r = zr
	} else if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	sub = strings.Trim(path.Clean("/"+sub), "/")
	want := []string{path.Join(sub, policy.FileName)}
	if sub != "" {
		want = append(want, sub)
	}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %w", skill.ErrArchiveFormat, err)
		}
		if h.Typeflag != tar.TypeReg || !slices.Contains(want, strings.TrimPrefix(path.Clean(h.Name), "./")) {
			continue
		}
		var buf bytes.Buffer
		if n, err := io.Copy(&buf, io.LimitReader(tr, policy.MaxFileSize+1)); err != nil {
			return nil, err
		} else if n > policy.MaxFileSize {
			return nil, fmt.Errorf("%s is larger than %d bytes", h.Name, policy.MaxFileSize)
		}
		return buf.Bytes(), nil
	}
	return nil, fmt.Errorf("it holds no %s (name the file with path=, or publish one at the root)", path.Join(sub, policy.FileName))
}
