package trust

import (
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/agentadaptor/agentadaptor/internal/sourceloc"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
)

// Origin is implemented by a skill source that says where it comes from,
// as the policy sees it: oci.TrustedSource does (see
// oci.Artifact.TrustedSkill), and so do the sources of git's and
// github's Client.TrustedSkill. A source without it is a local folder
// when it is one (a source with a SkillPath method, as skill.Dir makes),
// "inline" when it has no location at all (skill.Inline, skill.FS), and
// "unknown" otherwise (an archive, a source of another type), which a
// policy with rules that could apply refuses.
type Origin interface {
	Origin() source.Origin
}

// Pinned is implemented by a skill source read from a published source
// at a pin: the [SignatureVerifier] or source.CommitVerifier of the
// source checks that pin (rule 3). The TrustedSource of packages
// source/oci, source/git and source/github are ones.
type Pinned interface {
	Pin() string
}

// OriginOf returns where src comes from as the policy sees it (rule 1):
// src's own [Origin], else a local folder for a source with a SkillPath
// method (absolute, at its real path with links resolved as package
// source's rule 15 says, not pinned), else Kind "inline" for a source
// with no location (an InlineSkillMD or SkillFS method: skill.Inline,
// skill.FS), else Kind "unknown": an archive or a source of another type
// that comes from somewhere it does not say.
func OriginOf(src skill.Source) source.Origin {
	if o, ok := src.(Origin); ok {
		return o.Origin()
	}
	if p, ok := src.(interface{ SkillPath() string }); ok {
		loc, err := filepath.Abs(p.SkillPath())
		if err != nil {
			loc = filepath.Clean(p.SkillPath())
		}
		return source.Origin{Kind: "local", Location: sourceloc.RealPath(loc), Display: p.SkillPath()}
	}
	switch src.(type) {
	case interface{ InlineSkillMD() string }, interface {
		SkillFS() (fs.FS, string)
	}:
		return source.Origin{Kind: "inline"}
	}
	if a, ok := src.(interface {
		SkillArchive() (skill.Opener, string, string, string)
	}); ok {
		display := "an archive without an origin"
		if _, _, _, fp := a.SkillArchive(); fp != "" {
			display += " (fingerprint " + fp + ")"
		}
		return source.Origin{Kind: "unknown", Display: display}
	}
	return source.Origin{Kind: "unknown", Display: fmt.Sprintf("a %T source without an origin", src)}
}
