package extract

import (
	"iter"
	"strings"
)

// LeftOut reports whether a file or folder named elem (one path element)
// is left out of every skill tree: the metadata folders and files of
// version-control systems. A skill's tree never holds them, whatever
// source it comes from (rule 14 of the package doc). Names are compared
// without regard to ASCII case, as a case-insensitive file system (macOS,
// Windows) would find ".GIT" when a program asks for ".git".
//
// They are left out because they are live configuration for the tools
// that read them, not skill content: git runs the commands a repository's
// config names (core.fsmonitor, core.hooksPath, diff drivers) when
// someone runs git status inside the folder, Mercurial runs the hooks of
// .hg/hgrc, and Jujutsu reads .jj's repository config.
func LeftOut(elem string) bool {
	if len(elem) < 3 || len(elem) > 9 {
		return false
	}
	switch strings.ToLower(elem) {
	case ".git", ".hg", ".svn", ".jj", ".bzr", "_darcs", ".pijul", ".fslckout", "_fossil_":
		return true
	}
	return false
}

// LeftOutPath reports whether a slash-separated path has an element that
// is [LeftOut]: the entry, or a folder above it, is not part of the skill.
func LeftOutPath(p string) bool {
	for p != "" {
		var elem string
		elem, p, _ = strings.Cut(p, "/")
		if LeftOut(elem) {
			return true
		}
	}
	return false
}

// SoleFolder is rule 17: the folder that holds everything of a tree
// whose root holds nothing else, as `tar -czf kit.tgz kit` and the
// tarballs of GitHub and git hosts make. It returns the name of the one
// entry at the root when that entry is a folder (a link is not one),
// and "" when the root holds anything else, more, or nothing.
// Version-control metadata (rule 14) is left out of the count, as it is
// out of every skill. entries gives the root's entries, each name with
// whether it is a folder.
func SoleFolder(entries iter.Seq2[string, bool]) string {
	sole := ""
	for name, dir := range entries {
		switch {
		case LeftOut(name):
			continue
		case sole != "" || !dir:
			return ""
		}
		sole = name
	}
	return sole
}
