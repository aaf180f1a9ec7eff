package skill

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/extract"
)

// ErrRuntimeNameConflict identifies two selected skills that would be
// materialized under the same runtime name.
var ErrRuntimeNameConflict = errors.New("agentadaptor: skills share a runtime name")

// maxRuntimeName is the longest runtime name derived from a key, in bytes;
// it matches the Agent Skills limit on a skill's name.
const maxRuntimeName = 64

// RuntimeName returns the folder name a skill is materialized under and
// that agents see:
//
//  1. Metadata[MetadataRuntimeName] when it is set and not empty. It must be
//     one portable path element (the archive name rules), not hidden.
//  2. Otherwise it is derived from the key: lowercased, each run of
//     characters outside a-z and 0-9 becomes one "-", leading and trailing
//     "-" are trimmed, and the result is cut to 64 bytes (and trimmed
//     again). "Team/Code Review" becomes "team-code-review".
//  3. A key with no letter or digit of a-z0-9 at all (such as "日本語")
//     derives "skill-" followed by the first 12 hex digits of the key's
//     SHA-256, so it is stable and distinct.
//  4. A derived name that is a Windows device name ("con", "nul", "com1",
//     ...) gets "-skill" appended, so every tree stays portable.
//
// A blank key without an explicit runtime name fails with
// [ErrSkillKeyMissing].
func RuntimeName(s Skill) (string, error) {
	if v := s.Metadata[MetadataRuntimeName]; v != "" {
		if err := extract.CheckName(v); err != nil {
			return "", fmt.Errorf("metadata %s: %w (use one portable folder name)", MetadataRuntimeName, err)
		}
		return v, nil
	}
	key := strings.TrimSpace(s.Key)
	if key == "" {
		return "", ErrSkillKeyMissing
	}
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(key) {
		if 'a' <= r && r <= 'z' || '0' <= r && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	name := b.String()
	if len(name) > maxRuntimeName {
		name = strings.TrimRight(name[:maxRuntimeName], "-")
	}
	if name == "" {
		sum := sha256.Sum256([]byte(key))
		name = "skill-" + hex.EncodeToString(sum[:6])
	}
	if extract.CheckName(name) != nil { // a Windows device name such as "con"
		name += "-skill"
	}
	return name, nil
}
