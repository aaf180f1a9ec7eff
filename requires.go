package adaptor

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/sourceloc"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/skillmd"
)

// The limits of a run's closure ("Requirements", rule 11).
const (
	// maxClosure is the most skills a run selects, requirements included.
	maxClosure = 256
	// maxRequireDepth is the longest chain of requirements below a skill
	// the agent or the run named.
	maxRequireDepth = 32
)

// node is one skill of a closure.
type node struct {
	skill  skill.Skill         // as declared or resolved, for comparisons
	name   string              // runtime name
	chain  []string            // keys from a named skill to this one
	label  string              // how conflicts name its declaration
	follow bool                // its requirements are selected with it
	dir    string              // its folder, once materialized
	reqs   []skill.Requirement // the requirements resolved to it
}

// following says, for each selected skill, whether its requirements are
// followed: all with requires, else those marked by skill.WithRequires.
// A mark with another value than "true" fails (rule 9).
func following(selected []skill.Skill, requires bool) ([]bool, error) {
	follow := make([]bool, len(selected))
	for i, s := range selected {
		switch v := s.Metadata[skill.MetadataRequires]; v {
		case "true":
			follow[i] = true
		case "":
			follow[i] = requires
		default:
			return nil, &skill.RequirementError{Chain: []string{s.Key}, Err: fmt.Errorf("%w: metadata %s is %q; only \"true\" is a value it takes (use skill.WithRequires)", skill.ErrRequirement, skill.MetadataRequires, v)}
		}
	}
	return follow, nil
}

// closure selects the named skills and, level by level, the skills their
// requirements name, materializing each level before reading its
// requirements (the rules of "Requirements" in the package doc). It
// returns the whole selection with its entries and content digests, in
// key order.
func (a *Agent) closure(ctx context.Context, d *declarations, named []skill.Skill, names []string, follow []bool) ([]skill.Skill, []driver.ResolvedSkill, []string, error) {
	merged := make(map[string]*merge)
	memo := make(map[asked]answer)
	for range maxClosure {
		selected, entries, digests, err := a.closureOnce(ctx, d, named, names, follow, merged, memo)
		if err != errMerged {
			return selected, entries, digests, err
		}
	}
	return nil, nil, nil, fmt.Errorf("%w: the requirements of one skill were merged %d times (name fewer versions of it)", skill.ErrRequirement, maxClosure)
}

// errMerged ends a closure that merged requirements of one skill (rule
// 7): the closure is found again with the merged skill.
var errMerged = errors.New("merged")

// merge is the skill that requirements of one key resolve to together.
type merge struct {
	texts map[string]bool
	skill skill.Skill
}

// asked is a requirement's text as one skill lists it: what the
// resolver is asked once per closure (rule 5).
type asked struct{ by, text string }

// answer is the resolver's answer to an asked requirement.
type answer struct {
	skill skill.Skill
	err   error
}

// closureOnce is closure with the skills merged so far, and the
// requirements resolved so far.
func (a *Agent) closureOnce(ctx context.Context, d *declarations, named []skill.Skill, names []string, follow []bool, merged map[string]*merge, memo map[asked]answer) ([]skill.Skill, []driver.ResolvedSkill, []string, error) {
	c := &closure{
		agent:  a,
		byKey:  make(map[string]*node, len(named)),
		byName: make(map[string]string, len(named)),
		edges:  make(map[string][]edge),
		merged: merged,
		memo:   memo,
	}
	if oc, ok := a.materializer.(skill.OriginChecker); ok {
		c.checkOrigin = func(s skill.Skill) error {
			if err := oc.CheckOrigin(s); err != nil {
				return &originRefusal{key: s.Key, err: err}
			}
			return nil
		}
	}
	level := make([]*node, len(named))
	for i, s := range named {
		n := &node{skill: s, name: names[i], chain: []string{s.Key}, label: d.byKey[s.Key].origin, follow: follow[i]}
		c.byKey[s.Key], c.byName[names[i]] = n, s.Key
		level[i] = n
	}
	for depth := 0; len(level) > 0 || len(c.pending) > 0; depth++ {
		var read []*node
		if len(level) > 0 {
			entries, digests, err := c.materialize(ctx, level, depth)
			if err != nil {
				return nil, nil, nil, err
			}
			c.entries = append(c.entries, entries...)
			c.digests = append(c.digests, digests...)
			for i, n := range level {
				n.dir = entries[i].Path
				if n.follow {
					read = append(read, n)
				}
			}
		}
		read, c.pending = append(read, c.pending...), nil
		var next []*node
		for _, n := range read {
			found, err := c.requirements(ctx, n)
			if err != nil {
				return nil, nil, nil, err
			}
			next = append(next, found...)
		}
		level = next
	}
	if err := c.checkCycles(); err != nil {
		return nil, nil, nil, err
	}
	order := make([]int, len(c.entries))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(x, y int) int { return strings.Compare(c.entries[x].Key, c.entries[y].Key) })
	selected := make([]skill.Skill, len(order))
	entries := make([]driver.ResolvedSkill, len(order))
	digests := make([]string, len(order))
	for i, j := range order {
		selected[i], entries[i], digests[i] = c.byKey[c.entries[j].Key].skill, c.entries[j], c.digests[j]
	}
	return selected, entries, digests, nil
}

// originRefusal is the materializer's refusal of where a requirement
// leads, as the resolver returns it: the closure names the skill refused
// at the end of the chain, as it does for a skill refused when it is
// materialized (rule 12).
type originRefusal struct {
	key string
	err error
}

func (e *originRefusal) Error() string { return e.err.Error() }
func (e *originRefusal) Unwrap() error { return e.err }

// closure is the state of one run's closure.
type closure struct {
	agent   *Agent
	byKey   map[string]*node
	byName  map[string]string // runtime name to key
	edges   map[string][]edge // by the requiring skill's key
	entries []driver.ResolvedSkill
	digests []string
	pending []*node           // materialized, their requirements not yet read
	merged  map[string]*merge // by key, kept from one closureOnce to the next
	memo    map[asked]answer
	// checkOrigin is the materializer's check of where a skill comes
	// from, handed to the resolver (skill.Requirement.CheckOrigin).
	checkOrigin func(skill.Skill) error
}

// edge is one requirement: the key it resolved to, and its text.
type edge struct{ to, text string }

// materialize materializes one level: the named skills (depth 0) as a
// run without requirements does, each required skill alone, so that its
// failure names its chain (rules 12 and 14).
func (c *closure) materialize(ctx context.Context, level []*node, depth int) ([]driver.ResolvedSkill, []string, error) {
	if depth == 0 {
		skills, names := make([]skill.Skill, len(level)), make([]string, len(level))
		for i, n := range level {
			skills[i], names[i] = n.skill, n.name
		}
		return c.agent.materialize(ctx, skills, names)
	}
	entries := make([]driver.ResolvedSkill, len(level))
	digests := make([]string, len(level))
	errs := make([]error, len(level))
	g := new(errgroup.Group)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, n := range level {
		g.Go(func() error {
			s := n.skill
			if s.Reason == "" {
				s.Reason = "required by " + strings.Join(n.chain[:len(n.chain)-1], " -> ")
			}
			e, dg, err := c.agent.materialize(ctx, []skill.Skill{s}, []string{n.name})
			if err != nil {
				errs[i] = &skill.RequirementError{Chain: n.chain, Err: err}
				return nil
			}
			entries[i], digests[i] = e[0], dg[0]
			return nil
		})
	}
	_ = g.Wait()
	for _, err := range errs { // the first failure in the order of the level
		if err != nil {
			return nil, nil, err
		}
	}
	return entries, digests, nil
}

// requirements reads the requirements of n, materialized, and returns
// the skills they add to the selection.
func (c *closure) requirements(ctx context.Context, n *node) ([]*node, error) {
	md, err := skillmd.ParseDir(n.dir, skillmd.WithMode(skillmd.Lenient))
	if err != nil { // rule 7 of Resolution has found it loadable
		return nil, &skill.RequirementError{Chain: n.chain, Err: fmt.Errorf("%w: %w", skill.ErrRequirement, err)}
	}
	texts, err := md.Requires()
	if err != nil {
		return nil, &skill.RequirementError{Chain: n.chain, Err: fmt.Errorf("%w: %w", skill.ErrRequirement, err)}
	}
	var added []*node
	for _, text := range texts {
		failed := func(format string, args ...any) error {
			return &skill.RequirementError{Chain: n.chain, Requirement: text, Err: fmt.Errorf("%w: "+format, append([]any{skill.ErrRequirement}, args...)...)}
		}
		if len(n.chain) > maxRequireDepth { // before the resolver is asked (rule 11)
			return nil, failed("the chain is longer than %d requirements (require fewer levels: a skill may require the skills of its requirements itself)", maxRequireDepth)
		}
		req := skill.Requirement{Text: text, By: n.skill, Chain: slices.Clone(n.chain), CheckOrigin: c.checkOrigin}
		s, err := c.resolve(ctx, req)
		if refusal := (*originRefusal)(nil); errors.As(err, &refusal) { // the skill it leads to, refused as it would be when materialized (rule 12)
			return nil, &skill.RequirementError{Chain: append(slices.Clone(n.chain), refusal.key), Err: refusal.err}
		}
		if err != nil {
			return nil, &skill.RequirementError{Chain: n.chain, Requirement: text, Err: err}
		}
		if m := c.merged[s.Key]; m != nil && m.texts[text] {
			s = m.skill
		}
		if strings.TrimSpace(s.Key) == "" {
			return nil, failed("the skill it resolved to has no key (%w)", skill.ErrSkillKeyMissing)
		}
		if skill.SourceDiff(s.Source, nil) == "" {
			return nil, failed("the skill %q it resolved to has no source (%w)", s.Key, skill.ErrSkillSourceMissing)
		}
		chain := append(slices.Clone(n.chain), s.Key)
		label := strings.Join(chain, " -> ")
		c.edges[n.skill.Key] = append(c.edges[n.skill.Key], edge{to: s.Key, text: text})
		if prev, ok := c.byKey[s.Key]; ok {
			// The declaration selected first keeps its fields (Required,
			// Reason, Metadata): only the sources must agree (rule 7).
			if detail := skill.SourceDiff(prev.skill.Source, s.Source); detail != "" {
				if len(prev.chain) > 1 { // a named skill is never merged away
					if err := c.merge(ctx, prev, req, s.Key); err != nil {
						return nil, err
					}
				}
				detail += " (a run selects one skill per key: have both name the same skill at the same version, a range's highest version among them)"
				return nil, &skill.SkillKeyConflictError{Key: s.Key, Sources: []string{prev.label, label}, Detail: detail}
			}
			if !slices.ContainsFunc(prev.reqs, func(r skill.Requirement) bool { return r.Text == req.Text }) {
				prev.reqs = append(prev.reqs, req)
			}
			if !prev.follow { // a named skill that is also required: its requirements are followed too (rule 2)
				prev.follow = true
				c.pending = append(c.pending, prev)
			}
			continue
		}
		if len(c.byKey) >= maxClosure {
			return nil, failed("the run would select more than %d skills", maxClosure)
		}
		name, err := skill.RuntimeName(s)
		if err != nil {
			return nil, &skill.RequirementError{Chain: chain, Err: &skill.SkillMaterializationError{Key: s.Key, Cause: err}}
		}
		if other, ok := c.byName[name]; ok {
			return nil, &skill.RequirementError{Chain: chain, Err: fmt.Errorf("%w: %q and %q both become %q (set skill.MetadataRuntimeName on %q)", skill.ErrRuntimeNameConflict, other, s.Key, name, other)}
		}
		m := &node{skill: s, name: name, chain: chain, label: label, follow: true, reqs: []skill.Requirement{req}}
		c.byKey[s.Key], c.byName[name] = m, s.Key
		added = append(added, m)
	}
	return added, nil
}

// resolve returns the skill that req names: a folder or fs.FS tree
// relative to its skill's own (rules 3 and 4), else what the agent's
// resolver returns (rule 5), asked once per closure for each text of
// each skill.
func (c *closure) resolve(ctx context.Context, req skill.Requirement) (skill.Skill, error) {
	text, by := req.Text, req.By
	if relative(text) {
		if strings.ContainsAny(text, "\\:") {
			return skill.Skill{}, fmt.Errorf("%w: a relative requirement holds no backslash or colon; separate its folders with /", skill.ErrRequirement)
		}
		switch src := by.Source.(type) {
		case skill.PathSource:
			return skill.Dir(filepath.Join(src.Path, filepath.FromSlash(text))), nil
		case *skill.PathSource:
			return skill.Dir(filepath.Join(src.Path, filepath.FromSlash(text))), nil
		case skill.FSSource:
			return c.resolveFS(text, by, src)
		case *skill.FSSource:
			return c.resolveFS(text, by, *src)
		}
	}
	if c.agent.resolver == nil {
		if relative(text) {
			return skill.Skill{}, fmt.Errorf("%w: %q is relative, and the skill %q has no folder it could be relative to: only a folder of this machine (skill.Dir) or an fs.FS tree (skill.FS) has one; a skill of any other source (a published one, whose source says where it came from) names its requirements by published source", skill.ErrRequirement, text, by.Key)
		}
		return skill.Skill{}, fmt.Errorf("%w: no requirement resolver is installed to resolve it (add one with adaptor.WithRequirementResolver, such as package source/requirement's; a path is a requirement only when relative to the skill's folder, ./ or ../)", skill.ErrRequirement)
	}
	key := asked{by: by.Key, text: text}
	if r, ok := c.memo[key]; ok {
		return r.skill, r.err
	}
	s, err := c.agent.resolver.ResolveRequirement(ctx, req)
	if err != nil {
		err = fmt.Errorf("%w: %w", skill.ErrRequirement, err)
	}
	c.memo[key] = answer{s, err}
	return s, err
}

// resolveFS is the folder text names relative to by's in its fs.FS tree
// (rule 4).
func (c *closure) resolveFS(text string, by skill.Skill, src skill.FSSource) (skill.Skill, error) {
	p := path.Join(cmp.Or(strings.Trim(src.Root, "/"), "."), text)
	if !fs.ValidPath(p) || p == "." {
		return skill.Skill{}, fmt.Errorf("%w: it leaves the fs.FS of %q (a requirement of an fs.FS skill names a folder of the same fs.FS)", skill.ErrRequirement, by.Key)
	}
	return skill.FS(src.FS, p), nil
}

// relative reports whether a requirement is a path relative to the
// requiring skill's folder: "./x", "../x", "." or "..".
func relative(text string) bool {
	return text == "." || text == ".." || strings.HasPrefix(text, "./") || strings.HasPrefix(text, "../")
}

// checkCycles refuses a closure whose requirements form a cycle, naming
// it and the requirement that closes it (rule 10).
func (c *closure) checkCycles() error {
	const (
		unseen = iota
		open
		done
	)
	state := make(map[string]int, len(c.byKey))
	var stack []string
	var visit func(k string) error
	visit = func(k string) error {
		state[k] = open
		stack = append(stack, k)
		for _, e := range c.edges[k] {
			switch state[e.to] {
			case open:
				cycle := append(slices.Clone(stack[slices.Index(stack, e.to):]), e.to)
				return &skill.RequirementError{Chain: c.byKey[k].chain, Requirement: e.text,
					Err: fmt.Errorf("%w: the requirements form a cycle, %s (a skill cannot require itself, directly or through others; remove one of them)", skill.ErrRequirement, strings.Join(cycle, " -> "))}
			case unseen:
				if err := visit(e.to); err != nil {
					return err
				}
			}
		}
		stack = stack[:len(stack)-1]
		state[k] = done
		return nil
	}
	for _, k := range slices.Sorted(maps.Keys(c.edges)) {
		if state[k] == unseen {
			if err := visit(k); err != nil {
				return err
			}
		}
	}
	return nil
}

// merge asks the resolver, when it is a skill.RequirementMerger, for the
// skill that prev's requirements and req name together (rule 7): nil when
// they cannot be merged (a conflict), errMerged when they were, to find
// the closure again with the merged skill, or the error of requirements
// with no version in common.
func (c *closure) merge(ctx context.Context, prev *node, req skill.Requirement, key string) error {
	merger, ok := c.agent.resolver.(skill.RequirementMerger)
	if !ok || len(prev.reqs) == 0 {
		return nil
	}
	rs := append(slices.Clone(prev.reqs), req)
	s, ok, err := merger.MergeRequirements(ctx, rs)
	if refusal := (*originRefusal)(nil); errors.As(err, &refusal) {
		return &skill.RequirementError{Chain: append(slices.Clone(req.Chain), refusal.key), Err: refusal.err}
	}
	if err != nil { // no version all admit, or the resolver's failure: its error says which
		return &skill.RequirementError{Chain: req.Chain, Requirement: req.Text,
			Err: fmt.Errorf("%w: it and %s, which name %q too, cannot be resolved together: %w", skill.ErrRequirement, requirementsText(prev.reqs), key, err)}
	}
	if !ok {
		return nil
	}
	if s.Key != key {
		return &skill.RequirementError{Chain: req.Chain, Requirement: req.Text,
			Err: fmt.Errorf("%w: the resolver merged the requirements of %q into a skill keyed %q", skill.ErrRequirement, key, s.Key)}
	}
	m := &merge{texts: make(map[string]bool), skill: s}
	if old := c.merged[key]; old != nil {
		maps.Copy(m.texts, old.texts)
	}
	for _, r := range rs {
		m.texts[r.Text] = true
	}
	c.merged[key] = m
	return errMerged
}

// requirementsText names requirements for a message: each as CHAIN's
// TEXT.
func requirementsText(rs []skill.Requirement) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmt.Sprintf("%s's %q", strings.Join(r.Chain, " -> "), sourceloc.Redact(r.Text))
	}
	return strings.Join(parts, " and ")
}
