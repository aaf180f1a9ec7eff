package skill_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentadaptor/agentadaptor/skill"
)

// listFiles prints the base name of dir and the slash-separated paths of
// the regular files under it.
func listFiles(dir string) {
	fmt.Println("folder:", filepath.Base(dir))
	fs.WalkDir(os.DirFS(dir), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			fmt.Println("file:", p)
		}
		return nil
	})
}

func ExampleDir() {
	tmp, err := os.MkdirTemp("", "skill-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "skills", "review")
	os.MkdirAll(filepath.Join(dir, "references"), 0o755)
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: review\ndescription: Review a change before it is merged.\n---\n# Review\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "references", "checklist.md"), []byte("- tests\n"), 0o644)

	s := skill.Dir(dir + "/")
	name, _ := skill.RuntimeName(s)
	fmt.Println("key:", s.Key)
	fmt.Println("runtime name:", name)

	// A local folder is used in place: nothing is copied into the cache.
	m := skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(filepath.Join(tmp, "cache")))
	path, err := m.Materialize(context.Background(), s)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("used in place:", path == dir)
	listFiles(path)
	// Output:
	// key: review
	// runtime name: review
	// used in place: true
	// folder: review
	// file: SKILL.md
	// file: references/checklist.md
}

func ExampleInline() {
	tmp, err := os.MkdirTemp("", "skill-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(tmp)

	s := skill.Inline("Team/Greet Users", "---\nname: team-greet-users\ndescription: Greet the team's new users.\n---\n# Greeting\nSay hello.\n")
	name, _ := skill.RuntimeName(s)
	fmt.Println("key:", s.Key)
	fmt.Println("runtime name:", name)

	m := skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(filepath.Join(tmp, "cache")))
	path, err := m.Materialize(context.Background(), s)
	if err != nil {
		fmt.Println(err)
		return
	}
	listFiles(path)
	md, _ := os.ReadFile(filepath.Join(path, "SKILL.md"))
	fmt.Printf("SKILL.md: %q\n", md)
	// Output:
	// key: Team/Greet Users
	// runtime name: team-greet-users
	// folder: team-greet-users
	// file: SKILL.md
	// SKILL.md: "---\nname: team-greet-users\ndescription: Greet the team's new users.\n---\n# Greeting\nSay hello.\n"
}

// exampleTarGz builds a small tar.gz whose skill lives under kit/.
func exampleTarGz() []byte {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	add := func(name string, mode int64, body string) {
		tw.WriteHeader(&tar.Header{Name: name, Mode: mode, Size: int64(len(body)), Typeflag: tar.TypeReg})
		tw.Write([]byte(body))
	}
	tw.WriteHeader(&tar.Header{Name: "kit/", Mode: 0o755, Typeflag: tar.TypeDir})
	add("kit/SKILL.md", 0o644, "---\nname: deploy-kit\ndescription: Deploy the service with scripts/deploy.sh.\n---\n# Deploy\n")
	add("kit/scripts/deploy.sh", 0o755, "#!/bin/sh\necho deploy\n")
	add("README.md", 0o644, "outside the subpath\n")
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

func ExampleArchive() {
	tmp, err := os.MkdirTemp("", "skill-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(tmp)

	s := skill.Archive("deploy-kit", skill.ArchiveBytes(exampleTarGz()),
		skill.WithFormat(skill.FormatTarGz),
		skill.WithSubpath("kit"),
		skill.WithFingerprint("v1.2.0"),
	)
	src := s.Source.(skill.ArchiveSource)
	fmt.Println("key:", s.Key)
	fmt.Println("format:", src.Format, "subpath:", src.Subpath, "fingerprint:", src.Fingerprint)

	m := skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(filepath.Join(tmp, "cache")))
	path, err := m.Materialize(context.Background(), s)
	if err != nil {
		fmt.Println(err)
		return
	}
	listFiles(path)
	info, err := os.Stat(filepath.Join(path, "scripts", "deploy.sh"))
	if err == nil {
		fmt.Println("deploy.sh executable:", info.Mode()&0o111 != 0)
	}
	// Output:
	// key: deploy-kit
	// format: tar.gz subpath: kit fingerprint: v1.2.0
	// folder: deploy-kit
	// file: SKILL.md
	// file: scripts/deploy.sh
	// deploy.sh executable: true
}

// An archive of one folder, as `tar -czf kit.tgz kit` makes it, is that
// folder's skill: no WithSubpath is needed.
func ExampleArchive_oneFolder() {
	tmp, err := os.MkdirTemp("", "skill-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(tmp)
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, body := range map[string]string{
		"kit/SKILL.md":     "---\nname: kit\ndescription: Use the kit's checklist.\n---\n# Kit\n",
		"kit/CHECKLIST.md": "- tests pass\n",
	} {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg})
		tw.Write([]byte(body))
	}
	tw.Close()
	gz.Close()
	archive := filepath.Join(tmp, "kit.tgz")
	if err := os.WriteFile(archive, buf.Bytes(), 0o644); err != nil {
		fmt.Println(err)
		return
	}

	m := skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(filepath.Join(tmp, "cache")))
	path, err := m.Materialize(context.Background(), skill.Archive("kit", skill.ArchiveFile(archive)))
	if err != nil {
		fmt.Println(err)
		return
	}
	listFiles(path)
	// Output:
	// folder: kit
	// file: CHECKLIST.md
	// file: SKILL.md
}

func ExampleLocalSkillsFromDir() {
	root, err := os.MkdirTemp("", "skill-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(root)
	for _, name := range []string{"write-proof", "code-review", "node_modules", ".cache"} {
		os.MkdirAll(filepath.Join(root, name), 0o755)
		os.WriteFile(filepath.Join(root, name, "SKILL.md"), []byte("---\nname: "+name+"\ndescription: The "+name+" workflow.\n---\n# "+name+"\n"), 0o644)
	}
	os.MkdirAll(filepath.Join(root, "notes"), 0o755) // no SKILL.md: skipped

	skills, err := skill.LocalSkillsFromDir(root,
		skill.WithDirIgnore("node_modules"),
		skill.WithDirSkillKeyPrefix("team"),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range skills {
		p := s.Source.(skill.PathSource).Path
		name, _ := skill.RuntimeName(s)
		fmt.Printf("%s -> %s (runtime name %s, absolute %t)\n", s.Key, filepath.Base(p), name, filepath.IsAbs(p))
	}
	fmt.Println("refs:", len(skill.SkillsAsRefs(skills)))
	// Output:
	// team/code-review -> code-review (runtime name team-code-review, absolute true)
	// team/write-proof -> write-proof (runtime name team-write-proof, absolute true)
	// refs: 2
}
