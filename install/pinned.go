package install

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/agentadaptor/agentadaptor/skill"
)

// PinnedRequest says what [Installer.Pinned] returns.
type PinnedRequest struct {
	// Name is the skill, as the lock file records it. Required.
	Name string
	// Digest is the content wanted. Default (empty): the content the
	// lock file records for Name. Another digest is looked up in the
	// skill cache alone, where [Installer.Update] with DryRun leaves the
	// new content it reports ([SkillUpdate.Digest]).
	Digest string
}

// Pinned returns the content of the installed skill req.Name that the
// lock file records (its digest), without installing or changing
// anything: the skill cache's copy of that digest, else the installed
// canonical copy when it is unchanged (its digest is the recorded one),
// else the recorded
// source read as Sync reads it (a published source at its pin, the
// trust checks of the installer applied), whose content must have the
// recorded digest ([ErrDrift] otherwise). The skill is a skill.Dir of
// the folder in the skill cache, keyed by its name. A name the lock file
// does not record fails with [ErrNotInstalled]; a req.Digest the skill
// cache does not hold, with [ErrSourceUnavailable].
func (in *Installer) Pinned(ctx context.Context, req PinnedRequest) (skill.Skill, error) {
	lock, err := in.peekLock()
	if err != nil {
		return skill.Skill{}, err
	}
	if req.Name == "" {
		return skill.Skill{}, fmt.Errorf("skill \"\": %w: no skill name given; name one the lock file in %s records (see 'agentskills list')", ErrNotInstalled, in.Root())
	}
	if err := notInstalled(lock, []string{req.Name}, in.Root()); err != nil {
		return skill.Skill{}, err
	}
	entry := lock.Skills[req.Name]
	digest := req.Digest
	if digest == "" {
		digest = entry.Digest
	}
	if dir, ok := in.cached(ctx, req.Name, &lockEntry{Digest: digest}); ok {
		return pinnedSkill(dir, req.Name), nil
	}
	if digest != entry.Digest {
		return skill.Skill{}, fmt.Errorf("skill %s: %w: the skill cache holds no content of digest %s (it is recorded with %s)", req.Name, ErrSourceUnavailable, digest, entry.Digest)
	}
	if dir, ok := in.installedCopy(ctx, req.Name, entry.Digest); ok {
		return pinnedSkill(dir, req.Name), nil
	}
	names := []string{req.Name}
	st, err := in.checkRecorded(entry.Source, entry.Pin, names, lock)
	if err != nil {
		return skill.Skill{}, fmt.Errorf("skill %s: %w", req.Name, err)
	}
	r, err := in.syncSource(ctx, entry.Source, entry.Pin, names, lock, st)
	if err != nil {
		if errors.Is(err, ErrInterrupted) {
			return skill.Skill{}, err
		}
		return skill.Skill{}, fmt.Errorf("skill %s: %w", req.Name, err)
	}
	defer r.cleanup()
	w, err := in.recordedWant(req.Name, entry.Source, entry, r)
	if err == nil {
		err = in.auditRecorded(ctx, &w.c, entry.AllowedRisks)
	}
	if err != nil {
		return skill.Skill{}, err
	}
	dir, d, err := in.materialize(ctx, &w.c)
	if err != nil {
		return skill.Skill{}, err
	}
	if d != entry.Digest {
		return skill.Skill{}, fmt.Errorf("skill %s: %w: %s now holds content of digest %s, and the lock file records %s (the content it was installed with is no longer there to read)",
			req.Name, ErrDrift, sourceLabel(entry.Source, entry.Subpath), d, entry.Digest)
	}
	return pinnedSkill(dir, req.Name), nil
}

// installedCopy puts the installed canonical copy of the skill name in
// the skill cache and returns the cache's folder, when its content has
// digest: unchanged since it was installed.
func (in *Installer) installedCopy(ctx context.Context, name, digest string) (string, bool) {
	canonical := in.canonicalPath(name)
	if fi, err := os.Lstat(canonical); err != nil || !fi.IsDir() {
		return "", false
	}
	s := skill.FS(os.DirFS(canonical), ".")
	s.Key = name
	s.Metadata = map[string]string{skill.MetadataRuntimeName: name}
	dir, d, err := in.cache.MaterializeContent(ctx, s)
	if err != nil || d != digest {
		return "", false
	}
	return dir, true
}

// pinnedSkill is the skill of the cache's folder dir, keyed by name.
func pinnedSkill(dir, name string) skill.Skill {
	s := skill.Dir(dir)
	s.Key = name
	return s
}

// InstalledAgents returns the agents the lock file records a skill
// installed for, sorted by ID. It reads the lock file alone, as
// [Installer.Installed] does.
func (in *Installer) InstalledAgents(ctx context.Context) ([]Agent, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	lock, err := in.readCheckedLock()
	if err != nil {
		return nil, err
	}
	return recordedAgents(lock), nil
}
