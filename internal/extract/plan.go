package extract

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
)

// The sentinel errors. Every error an extraction returns because of the
// archive's content wraps exactly one of them; cancellation wraps the
// context's error instead.
var (
	// ErrFormat reports an archive that is corrupt, truncated, of an
	// unsupported format, or whose checksums do not match.
	ErrFormat = errors.New("unsupported or corrupt archive")
	// ErrUnsafe reports an entry that could escape the destination, clash
	// with another entry, or is not a regular file or folder.
	ErrUnsafe = errors.New("unsafe archive entry")
	// ErrLimit reports an archive over one of the configured limits.
	ErrLimit = errors.New("archive exceeds a limit")
)

// The formats Options.Format names: the values of package skill's
// Format.
const (
	formatAuto  = "" // sniff the leading bytes
	formatZip   = "zip"
	formatTar   = "tar"
	formatTarGz = "tar.gz"
)

// File describes one regular file an extraction wrote (or, without a
// destination, would write): the record a tree's digest is made of, field
// for field package cache's File, which package skill converts it to.
type File struct {
	// Path is slash-separated and relative to the skill folder.
	Path string
	// Exec reports whether the file is executable.
	Exec bool
	// Size is the file's length in bytes.
	Size int64
	// Sum is the SHA-256 of the file's bytes.
	Sum [32]byte
}

// Options says what to extract and within which limits. Every limit must
// be positive.
type Options struct {
	// Format pins the decoder: "zip", "tar" or "tar.gz" (package
	// skill's Format values); "" sniffs the leading bytes.
	Format string
	// Subpath selects the folder inside the archive that holds the skill;
	// empty means the archive root.
	Subpath string
	// MaxFileSize caps the bytes of any one file.
	MaxFileSize int64
	// MaxTotalSize caps the bytes that come out of the decompressor in all,
	// headers included, plus the bytes copied for links.
	MaxTotalSize int64
	// MaxArchiveEntries caps the number of entries (files, folders and
	// links).
	MaxArchiveEntries int
	// AnyTree accepts an archive without a SKILL.md at its (sub)root, for
	// listing archives that hold several skills.
	AnyTree bool
	// Wrapped, when not nil and Subpath is empty, accepts an archive
	// whose root holds no SKILL.md but whose sole folder ([SoleFolder])
	// holds a regular one: the skill is that folder (rule 13). Its files
	// are written where the archive names them, under the folder, and
	// shown to Content so; the [File] values [Archive] returns are
	// relative to the folder, and Wrapped is called with its name before
	// Archive returns. Default nil: the skill is at the archive root.
	Wrapped func(folder string)
	// Writable creates files 0644, or 0755 when executable, for trees
	// that people may edit (a skill installed into a project). Default:
	// read-only, 0444 or 0555.
	Writable bool
	// Scratch, when not nil, has a tar.gz archive extracted in two
	// passes, for a destination that must never hold a file of an
	// archive that is refused, even for a moment: it returns an empty
	// private file that holds the decompressed stream between the pass
	// that checks every entry and the pass that writes (the file is the
	// caller's to remove). Default nil: one pass, writing while checking,
	// with no scratch file.
	Scratch func() (*os.File, error)
	// DropLink, when not nil, is called for each link entry that rule 8
	// refuses, which is then left out instead of failing the archive
	// (rule 15). Default nil: such a link fails the archive.
	DropLink func(DroppedLink)
	// Content, when not nil, is shown the bytes of every file as they are
	// written, so that a caller can read them (audit them) without
	// reading the written tree again: for each file it is called, from
	// several goroutines at once, with the file's path (as in [File]),
	// whether it is executable, and its size when known (-1 when not);
	// the writer it returns (nil: none) is given the file's bytes in
	// order as they are written, and closed once the file is written
	// whole. A link's copy is a file too (with no root, links are not
	// copied, and not shown). The writer of a file whose writing failed
	// is not closed, and an error of a writer fails the extraction.
	// Default nil.
	Content func(rel string, exec bool, size int64) io.WriteCloser
	// Leave, when not nil, is asked of each file and link of the skill,
	// by its path (as in [File]), whether to leave it out (rule 16): one
	// it returns true for is checked and counted like every entry (a
	// file's declared size too), but not written, shown or returned. A
	// link that is written must not point to a file left out: its copy
	// fails. Default nil: every entry is written.
	Leave func(rel string) bool

	// writers, when positive, is how many goroutines write small files
	// at once, for benchmarks that compare counts; 0 means
	// [fileWriters].
	writers int
}

// LinkProblem says why rule 8 refuses a link.
type LinkProblem uint8

// The problems of a link that rule 8 refuses.
const (
	// LinkOut is a link whose target is absolute, not portable, or
	// leads out of the skill.
	LinkOut LinkProblem = iota + 1
	// LinkMissing is a link to nothing the archive holds.
	LinkMissing
	// LinkToFolder is a link to a folder.
	LinkToFolder
	// LinkToLink is a link to another link.
	LinkToLink
)

// DroppedLink is a link entry that rule 8 refuses, left out of an
// extraction by Options.DropLink (rule 15).
type DroppedLink struct {
	// Name is the link's cleaned archive path.
	Name string
	// Target is the link's target as the archive spells it.
	Target string
	// Problem says why it is refused.
	Problem LinkProblem
}

// scratch returns the file for a decompressed stream and how to release it.
func (o *Options) scratch() (*os.File, func(), error) {
	if o.Scratch != nil {
		f, err := o.Scratch()
		return f, func() {}, err
	}
	f, err := os.CreateTemp("", "agentadaptor-extract-*")
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close(); os.Remove(f.Name()) }, nil
}

func (o *Options) check() error {
	if o.MaxFileSize <= 0 || o.MaxTotalSize <= 0 || o.MaxArchiveEntries <= 0 {
		return fmt.Errorf("extract: every limit must be positive: %+v", *o)
	}
	if o.Subpath != "" {
		sub := strings.TrimSuffix(strings.TrimPrefix(o.Subpath, "./"), "/")
		if sub != "" && sub != "." {
			if err := CheckPath(sub); err != nil {
				return fmt.Errorf("subpath %q: %w", o.Subpath, err)
			}
		} else {
			sub = ""
		}
		o.Subpath = sub
	}
	return nil
}

func unsafeEntry(name, reason string) error {
	return fmt.Errorf("entry %q: %w: %s", name, ErrUnsafe, reason)
}

// Limit names a limit as the field of package skill's Limits that sets it
// does (the limits of Options have those names too); package github
// names its own two the same way (MaxDownloadSize, MaxExpandedSize).
type Limit string

// The limits of Options, as a LimitError names them.
const (
	LimitArchiveSize Limit = "MaxArchiveSize"
	LimitFileSize    Limit = "MaxFileSize"
	LimitTotalSize   Limit = "MaxTotalSize"
	LimitEntries     Limit = "MaxArchiveEntries"
)

// LimitError reports content over a limit. Its message says what is over
// the limit and by how much, never how to change it: that depends on who
// shows the error (a Go program sets an option, a command a flag), so
// whoever shows it says so from Limit. Package skill exports it as
// skill.LimitError, the one limit error of the module.
type LimitError struct {
	Limit Limit // which limit
	Max   int64 // its value
	msg   string
}

// NewLimitError returns a LimitError over limit, whose value is max, with
// a message formatted from format and args.
func NewLimitError(limit Limit, max int64, format string, args ...any) *LimitError {
	return &LimitError{Limit: limit, Max: max, msg: fmt.Sprintf(format, args...)}
}

func (e *LimitError) Error() string { return ErrLimit.Error() + ": " + e.msg }

// Unwrap returns ErrLimit.
func (e *LimitError) Unwrap() error { return ErrLimit }

func limitf(limit Limit, max int64, format string, args ...any) error {
	return NewLimitError(limit, max, format, args...)
}

func formatf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrFormat}, args...)...)
}

// kind classifies a planned entry.
type kind uint8

const (
	kindDir kind = iota + 1
	kindFile
	kindSymlink
	kindHardlink
)

// entry is the plan for one archive entry.
type entry struct {
	name     string // cleaned archive path
	rel      string // path inside the skill; "" when the entry is not written
	kind     kind
	exec     bool
	size     int64
	target   string // for links: the skill-relative path of the file it copies
	linkname string // for links: the target as the archive spells it
	known    *known // for files of a tar.gz: their content as the first pass read it
}

// node is one element of a name the archive holds or implies. Names are
// kept as a tree of elements, each with its fold key, so the memory they
// take is bounded by the number of entries (implied folders included)
// times the longest element, however deep and long the names are, and an
// element is folded once, however many names repeat it.
type node struct {
	name     string // the element as the archive spells it
	dir      bool
	explicit bool             // an entry lists it (else a name implies it)
	exact    map[string]*node // the children, by element
	folded   map[string]*node // the children, by fold key
}

// plan checks a whole archive's entries before anything is written: the
// names, their collisions, the entry count and the declared sizes.
type plan struct {
	opts    Options
	fold    *caseFolder
	root    node // the archive root
	entries []entry
	implied int             // folders the names imply that no entry lists
	total   int64           // declared bytes of written files and link copies
	left    map[string]bool // the files Options.Leave left out, by path in the skill
}

// count is how many entries the archive holds so far against the limit:
// its entries plus the folders their names imply.
func (p *plan) count() int { return len(p.entries) + p.implied }

func (p *plan) tooMany() error {
	return limitf(LimitEntries, int64(p.opts.MaxArchiveEntries), "more than %d entries, counting each folder the names imply", p.opts.MaxArchiveEntries)
}

func newPlan(opts Options) *plan {
	return &plan{opts: opts, fold: newCaseFolder(), root: node{dir: true, explicit: true}}
}

// add checks one entry and records it. The name is the raw archive name;
// linkname is the raw link target for links.
func (p *plan) add(raw string, k kind, exec bool, size int64, linkname string) error {
	if p.count() > p.opts.MaxArchiveEntries {
		return p.tooMany()
	}
	name, isRoot, err := cleanName(raw, k == kindDir)
	if err != nil {
		return err
	}
	if isRoot {
		return p.addRoot(raw, k)
	}
	// The entry and the folders its name implies must fit; a listed folder
	// that an earlier name implied is already counted.
	if err := p.claim(name, k == kindDir); err != nil {
		return err
	}
	if p.count() >= p.opts.MaxArchiveEntries {
		return p.tooMany()
	}
	e := entry{name: name, kind: k, exec: exec, size: size, linkname: linkname}
	if k != kindDir && size > p.opts.MaxFileSize {
		return limitf(LimitFileSize, p.opts.MaxFileSize, "entry %q declares %d bytes; the per-file limit is %d", name, size, p.opts.MaxFileSize)
	}
	rel, inside := p.within(name)
	if inside && LeftOutPath(rel) {
		// Version-control metadata is not part of the skill (rule 14):
		// checked and counted, like an entry outside the subpath, but
		// not written.
		rel, inside = "", false
	}
	if inside {
		e.rel = rel
	}
	switch k {
	case kindSymlink:
		e.target, err = symlinkTarget(name, rel, linkname, inside)
	case kindHardlink:
		e.target, err = p.hardlinkTarget(name, linkname, inside)
	case kindFile:
		err = p.countFile(e)
	}
	if err == nil && e.rel != "" && k != kindDir && p.opts.Leave != nil && p.opts.Leave(e.rel) {
		if k == kindFile {
			if p.left == nil {
				p.left = make(map[string]bool)
			}
			p.left[e.rel] = true
		}
		e.rel, e.target = "", "" // rule 16: checked and counted, not written
	}
	if err != nil && k != kindFile && p.opts.DropLink != nil {
		// Rule 15: the link is checked and counted but not written.
		p.opts.DropLink(DroppedLink{Name: name, Target: linkname, Problem: LinkOut})
		e.rel, e.target, err = "", "", nil
	}
	if err != nil {
		return err
	}
	p.entries = append(p.entries, e)
	return nil
}

// addRoot records an entry naming the archive root, which must be a
// folder.
func (p *plan) addRoot(raw string, k kind) error {
	if k != kindDir {
		return unsafeEntry(raw, "archive root is not a folder")
	}
	if p.count() >= p.opts.MaxArchiveEntries {
		return p.tooMany()
	}
	p.entries = append(p.entries, entry{kind: kindDir})
	return nil
}

// symlinkTarget checks the target of the symbolic link name (rel inside
// the skill, when inside) and returns the skill-relative path it copies;
// "" when the link is not written.
func symlinkTarget(name, rel, linkname string, inside bool) (string, error) {
	if err := checkLinkTarget(name, linkname); err != nil {
		return "", err
	}
	if !inside {
		return "", nil
	}
	t := path.Join(path.Dir(rel), linkname)
	if t == ".." || strings.HasPrefix(t, "../") {
		return "", unsafeEntry(name, fmt.Sprintf("link target %q leaves the skill", linkname))
	}
	return t, nil
}

// hardlinkTarget checks the target of the hard link name, an archive
// path, and returns its skill-relative path.
func (p *plan) hardlinkTarget(name, linkname string, inside bool) (string, error) {
	target, _, err := cleanName(linkname, false)
	if err != nil {
		return "", unsafeEntry(name, fmt.Sprintf("link target %q: %v", linkname, err))
	}
	t, ok := p.within(target)
	if inside && !ok {
		return "", unsafeEntry(name, fmt.Sprintf("link target %q leaves the skill", linkname))
	}
	return t, nil
}

// countFile counts the declared size of a file that is written against
// the total.
func (p *plan) countFile(e entry) error {
	if e.rel == "" {
		return nil
	}
	p.total += e.size
	if p.total > p.opts.MaxTotalSize {
		return limitf(LimitTotalSize, p.opts.MaxTotalSize, "files declare more than %d bytes in all", p.opts.MaxTotalSize)
	}
	return nil
}

// problemOf says why the skill-relative path target, which is no
// regular file of the skill, cannot be a link's target.
func (p *plan) problemOf(target string) LinkProblem {
	name := path.Join(p.opts.Subpath, target)
	n := &p.root
	for elem := range strings.SplitSeq(name, "/") {
		if name == "." {
			break // the archive root
		}
		if n = n.exact[elem]; n == nil {
			return LinkMissing
		}
	}
	switch {
	case n.dir:
		return LinkToFolder
	case LeftOutPath(target):
		return LinkOut
	}
	return LinkToLink
}

// cleanName strips the forms of the archive root that archivers write
// ("./" prefixes, a trailing slash on folders) and checks what is left.
func cleanName(raw string, dir bool) (name string, root bool, err error) {
	name = raw
	for strings.HasPrefix(name, "./") {
		name = name[2:]
	}
	if dir || strings.HasSuffix(name, "/") {
		name = strings.TrimSuffix(name, "/")
	}
	if name == "" || name == "." {
		return "", true, nil
	}
	if err := CheckPath(name); err != nil {
		return "", false, err
	}
	return name, false, nil
}

// claim records name (and the folders above it) and fails on duplicates,
// case-fold collisions and file-versus-folder clashes.
func (p *plan) claim(name string, dir bool) error {
	n := &p.root
	for start := 0; ; {
		elem, _, more := strings.Cut(name[start:], "/")
		end := start + len(elem)
		child, err := p.claimChild(n, name[:end], start, more || dir, !more)
		if err != nil || !more {
			return err
		}
		n, start = child, end+1
	}
}

// claimChild records the last element of name, which starts at start,
// under its parent folder n.
func (p *plan) claimChild(n *node, name string, start int, dir, explicit bool) (*node, error) {
	elem := name[start:]
	if c := n.exact[elem]; c != nil {
		switch {
		case c.dir != dir:
			return nil, unsafeEntry(name, "is both a file and a folder")
		case explicit && (!dir || c.explicit):
			return nil, unsafeEntry(name, "duplicate entry")
		}
		if explicit && !c.explicit {
			c.explicit = true
			p.implied-- // now listed: counted as an entry
		}
		return c, nil
	}
	key := p.fold.key(elem)
	if c := n.folded[key]; c != nil {
		return nil, unsafeEntry(name, fmt.Sprintf("collides with %q on a case-insensitive file system", name[:start]+c.name))
	}
	c := &node{name: strings.Clone(elem), dir: dir, explicit: explicit}
	if n.exact == nil {
		n.exact, n.folded = make(map[string]*node), make(map[string]*node)
	}
	n.exact[c.name] = c
	n.folded[strings.Clone(key)] = c
	if !explicit {
		p.implied++
	}
	return c, nil
}

// within maps an archive path to its path inside the skill, reporting
// whether it lies under the subpath at all (element-wise).
func (p *plan) within(name string) (string, bool) {
	sub := p.opts.Subpath
	if sub == "" {
		return name, true
	}
	if rest, ok := strings.CutPrefix(name, sub); ok && strings.HasPrefix(rest, "/") {
		return rest[1:], true
	}
	return "", false
}

// checkLinkTarget refuses symlink targets that are absolute or not
// portable; whether they stay inside the skill is decided with the entry.
func checkLinkTarget(name, target string) error {
	switch {
	case target == "":
		return unsafeEntry(name, "empty link target")
	case strings.HasPrefix(target, "/"):
		return unsafeEntry(name, fmt.Sprintf("absolute link target %q", target))
	case strings.ContainsAny(target, "\\:\x00"):
		return unsafeEntry(name, fmt.Sprintf("link target %q is not a portable relative path", target))
	case len(target) > MaxPathLen:
		return unsafeEntry(name, "link target too long")
	}
	return nil
}

// finish resolves links: each must copy a regular file of the skill. It
// counts the copied bytes against the total and checks that the skill
// has a SKILL.md at its root.
func (p *plan) finish() error {
	files := make(map[string]*entry)
	for i := range p.entries {
		e := &p.entries[i]
		if e.kind == kindFile && e.rel != "" {
			files[e.rel] = e
		}
	}
	for i := range p.entries {
		e := &p.entries[i]
		if (e.kind != kindSymlink && e.kind != kindHardlink) || e.rel == "" {
			continue
		}
		t, ok := files[e.target]
		if !ok && p.left[e.target] {
			return fmt.Errorf("link %q: its target %q is left out (Options.Leave)", e.name, e.target)
		}
		if !ok && p.opts.DropLink != nil {
			// Rule 15: the link is left out.
			p.opts.DropLink(DroppedLink{Name: e.name, Target: e.linkname, Problem: p.problemOf(e.target)})
			e.rel = ""
			continue
		}
		if !ok {
			return unsafeEntry(e.name, fmt.Sprintf("link target %q is not a regular file of the skill", e.target))
		}
		e.exec, e.size = t.exec, t.size
		p.total += t.size
		if p.total > p.opts.MaxTotalSize {
			return limitf(LimitTotalSize, p.opts.MaxTotalSize, "files and link copies exceed %d bytes in all", p.opts.MaxTotalSize)
		}
	}
	if s, ok := files["SKILL.md"]; p.opts.AnyTree || (ok && s.kind == kindFile) {
		return nil
	}
	if p.opts.Subpath != "" {
		return formatf("no SKILL.md file at %q", p.opts.Subpath)
	}
	if p.opts.Wrapped == nil {
		return formatf("no SKILL.md file at the archive root")
	}
	sole := SoleFolder(func(yield func(string, bool) bool) {
		for name, n := range p.root.exact {
			if !yield(name, n.dir) {
				return
			}
		}
	})
	if sole == "" {
		return formatf("no SKILL.md file at the archive root, nor is the root one folder that holds it")
	}
	if s, ok := files[sole+"/SKILL.md"]; !ok || s.kind != kindFile {
		return formatf("no SKILL.md file at the archive root, nor in %q, its one folder", sole)
	}
	p.opts.Wrapped(sole) // rule 13: the skill is that folder
	return nil
}
