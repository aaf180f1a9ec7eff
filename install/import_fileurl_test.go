package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/gitsigtest"
)

// TestImportGitFileURLOutsideProject checks that import leaves out a
// skills-lock.json entry of type git whose URL is file:///PATH of a
// repository outside the project, as it leaves out a local folder
// there: a project's record must not read the user's disk.
func TestImportGitFileURLOutsideProject(t *testing.T) {
	gitsigtest.Require(t, "git")
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	f := newFixture(t)
	// The user's private repository, outside the project.
	private := filepath.Join(f.env.Home, "notes")
	gitRepo(t, private, map[string]string{"skills/x/SKILL.md": skillMD("x") + "the user's secret notes\n"})
	gitsigtest.Commit(t, private, nil, gitsigtest.Unsigned, "notes")
	u := "file://" + filepath.ToSlash(private)
	writeFiles(t, f.env.Project, map[string]string{"skills-lock.json": `{"version": 1, "skills": {"x": {"source": "` + u + `", "sourceType": "git", "sourceUrl": "` + u + `", "skillPath": "skills/x/SKILL.md"}}}`})
	report, err := f.installer(t).Import(t.Context(), ImportRequest{From: ImportNPM})
	if err != nil {
		t.Fatal(err)
	}
	if len(report.Left) != 1 || !strings.Contains(report.Left[0].Reason, "outside the project") {
		t.Errorf("Import left %v; want x left out as outside the project", importNames(report.Left))
	}
	if len(report.Imported) != 0 {
		t.Errorf("Import = %v, left %v; want x left out: its repository is outside the project", importNames(report.Imported), importNames(report.Left))
	}
	if data, err := os.ReadFile(filepath.Join(f.env.Project, ".agents", "skills", "x", "SKILL.md")); err == nil && strings.Contains(string(data), "secret") {
		t.Errorf("Import copied the user's repository %s into the project", private)
	}
}

// TestImportGitFileURLInProject checks that import takes a
// skills-lock.json entry of type git whose file: URL names a repository
// inside the project, recording the repository's real path, and leaves
// out one whose path inside the project is a link leading out of it.
func TestImportGitFileURLInProject(t *testing.T) {
	gitsigtest.Require(t, "git")
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	f := newFixture(t)
	inside := filepath.Join(f.env.Project, "vendor", "tools")
	gitRepo(t, inside, map[string]string{"skills/x/SKILL.md": skillMD("x")})
	gitsigtest.Commit(t, inside, nil, gitsigtest.Unsigned, "tools")
	private := filepath.Join(f.env.Home, "notes")
	gitRepo(t, private, map[string]string{"skills/y/SKILL.md": skillMD("y") + "the user's secret notes\n"})
	gitsigtest.Commit(t, private, nil, gitsigtest.Unsigned, "notes")
	if err := os.Symlink(private, filepath.Join(f.env.Project, "notes")); err != nil {
		t.Skip("no symbolic links:", err)
	}
	in := "file://" + filepath.ToSlash(inside)
	out := "file://" + filepath.ToSlash(filepath.Join(f.env.Project, "notes"))
	writeFiles(t, f.env.Project, map[string]string{"skills-lock.json": `{"version": 1, "skills": {
		"x": {"source": "` + in + `", "sourceType": "git", "sourceUrl": "` + in + `", "skillPath": "skills/x/SKILL.md"},
		"y": {"source": "` + out + `", "sourceType": "gitlab", "sourceUrl": "` + out + `", "skillPath": "skills/y/SKILL.md"}}}`})
	report, err := f.installer(t).Import(t.Context(), ImportRequest{From: ImportNPM})
	if err != nil {
		t.Fatal(err)
	}
	if len(report.Imported) != 1 || report.Imported[0].Skill != "x" {
		t.Fatalf("Import = %v, left %v; want x imported", importNames(report.Imported), importNames(report.Left))
	}
	if len(report.Left) != 1 || report.Left[0].Skill != "y" || !strings.Contains(report.Left[0].Reason, "outside the project") {
		t.Errorf("Import left %v; want y left out as outside the project", importNames(report.Left))
	}
	if _, err := os.Stat(filepath.Join(f.env.Project, ".agents", "skills", "x", "SKILL.md")); err != nil {
		t.Errorf("x was not installed: %v", err)
	}
	if _, err := os.Stat(filepath.Join(f.env.Project, ".agents", "skills", "y")); err == nil {
		t.Errorf("Import copied the user's repository %s, through a link in the project, into the project", private)
	}
}
