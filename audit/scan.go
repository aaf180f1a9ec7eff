package audit

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"unicode/utf8"
)

// The audit's limits, as the package doc's "Limits" says.
const (
	maxFiles      = 10000
	maxTotalBytes = 64 << 20
	maxFileBytes  = 8 << 20
	maxSkillMD    = 1 << 20
	sniffBytes    = 8 << 10
	maxLineBytes  = 64 << 10
	maxExcerpt    = 160
)

// scanner holds one audit's findings and counts.
type scanner struct {
	fsys     fs.FS
	files    int
	total    int64
	findings []Finding
}

func (s *scanner) add(rule, file string, line int, excerpt, msg string) {
	r, _ := LookupRule(rule)
	s.findings = append(s.findings, Finding{Rule: rule, Severity: r.Severity, File: file, Line: line, Excerpt: excerpt, Message: msg})
}

func scanTree(fsys fs.FS) ([]Finding, error) {
	s := &scanner{fsys: fsys}
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("audit: reading %s: %w", name, err)
		}
		if d.IsDir() {
			return nil
		}
		s.files++
		if s.files > maxFiles {
			return fmt.Errorf("%w: more than %d files", ErrTooLarge, maxFiles)
		}
		return s.entry(name, d)
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(s.findings, func(a, b Finding) int {
		return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line),
			strings.Compare(a.Rule, b.Rule), strings.Compare(a.Excerpt, b.Excerpt))
	})
	return slices.CompactFunc(s.findings, func(a, b Finding) bool { return a == b }), nil
}

// entry audits one file of the tree.
func (s *scanner) entry(name string, d fs.DirEntry) error {
	if d.Type()&fs.ModeSymlink != 0 {
		target, err := fs.ReadLink(s.fsys, name)
		msg := "a symbolic link"
		if err == nil {
			msg = "a symbolic link to " + escape(target)
		}
		s.add(ruleSymlink, name, 0, "", msg)
		return nil
	}
	if !d.Type().IsRegular() {
		s.add(ruleSymlink, name, 0, "", fmt.Sprintf("a special file (%s)", d.Type()))
		return nil
	}
	info, err := d.Info()
	if err != nil {
		return fmt.Errorf("audit: reading %s: %w", name, err)
	}
	if info.Size() > maxFileBytes {
		s.add(ruleLargeFile, name, 0, "", fmt.Sprintf("%d bytes, over the 8 MiB any file of a skill may have; not scanned", info.Size()))
		return s.sniffOnly(name, info)
	}
	if name == "SKILL.md" && info.Size() > maxSkillMD {
		s.add(ruleLargeFile, name, 0, "", fmt.Sprintf("%d bytes, over the 1 MiB a SKILL.md may have", info.Size()))
	}
	data, err := s.read(name, maxFileBytes)
	if err != nil {
		return err
	}
	s.content(name, info.Mode(), data)
	return nil
}

// read reads at most limit bytes of a file, counting them against the
// audit's total.
func (s *scanner) read(name string, limit int64) ([]byte, error) {
	f, err := s.fsys.Open(name)
	if err != nil {
		return nil, fmt.Errorf("audit: reading %s: %w", name, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("audit: reading %s: %w", name, err)
	}
	if int64(len(data)) > limit {
		if limit == maxFileBytes {
			s.add(ruleLargeFile, name, 0, "", "grew past 8 MiB while it was read; not scanned")
			data = data[:0]
		} else {
			data = data[:limit]
		}
	}
	s.total += int64(len(data))
	if s.total > maxTotalBytes {
		return nil, fmt.Errorf("%w: more than %d MiB of files", ErrTooLarge, maxTotalBytes>>20)
	}
	return data, nil
}

// sniffOnly tells a program from other content by a file's first bytes.
func (s *scanner) sniffOnly(name string, info fs.FileInfo) error {
	head, err := s.read(name, sniffBytes)
	if err != nil {
		return err
	}
	if kind := programKind(head); kind != "" {
		s.add(ruleExecutableBinary, name, 0, "", "a native program ("+kind+")")
	}
	return nil
}

// content audits a file's bytes.
func (s *scanner) content(name string, mode fs.FileMode, data []byte) {
	if kind := programKind(data); kind != "" {
		s.add(ruleExecutableBinary, name, 0, "", "a native program ("+kind+")")
		return
	}
	if !isText(data) {
		if !textName(name, data) {
			s.add(ruleBinaryFile, name, 0, "", "not text; not scanned")
			return
		}
		// A file that says it is text is read as text: a NUL or an
		// invalid byte must not turn the audit off.
		data = bytes.ToValidUTF8(data, []byte("\uFFFD"))
	}
	if textName(name, data) {
		if i := bytes.IndexByte(data, 0); i >= 0 {
			n := 1 + bytes.Count(data[:i], []byte("\n"))
			s.add(ruleMalformedText, name, n, excerptAt(lineAt(data, i)),
				"a NUL byte in a text file: a viewer shows other text than a shell or a model reads")
		}
		// NUL separates words, as a shell or a model that skips it would.
		data = bytes.ReplaceAll(data, []byte{0}, []byte(" "))
	}
	if mode&0o111 != 0 && !bytes.HasPrefix(data, []byte("#!")) {
		s.add(ruleExecBit, name, 0, "", fmt.Sprintf("executable (%s) but not a script with #!", mode.Perm()))
	}
	s.text(name, data)
}

// textName reports whether a file says it is text: by its name (Markdown,
// plain text, a script, a configuration or page format) or by a #! line.
func textName(name string, data []byte) bool {
	if bytes.HasPrefix(data, []byte("#!")) {
		return true
	}
	switch strings.ToLower(path.Ext(name)) {
	case ".md", ".markdown", ".mdx", ".txt", ".rst",
		".sh", ".bash", ".zsh", ".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl",
		".ps1", ".psm1", ".bat", ".cmd", ".php", ".lua",
		".yaml", ".yml", ".json", ".toml", ".html", ".htm":
		return true
	}
	return false
}

// lineAt returns the line of data holding byte offset i, and i's offset
// in it.
func lineAt(data []byte, i int) (string, int) {
	start := bytes.LastIndexByte(data[:i], '\n') + 1
	end := len(data)
	if e := bytes.IndexByte(data[i:], '\n'); e >= 0 {
		end = i + e
	}
	return string(data[start:end]), i - start
}

// programKind names the native program format data starts with, or "".
func programKind(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("\x7fELF")):
		return "ELF"
	case len(data) >= 4 && slices.Contains([]uint32{0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe}, binary.BigEndian.Uint32(data)):
		return "Mach-O"
	case len(data) >= 8 && binary.BigEndian.Uint32(data) == 0xcafebabe && binary.BigEndian.Uint32(data[4:]) < 32:
		return "Mach-O universal"
	case len(data) >= 0x40 && data[0] == 'M' && data[1] == 'Z':
		off := int(binary.LittleEndian.Uint32(data[0x3c:]))
		if off >= 0x40 && off+4 <= len(data) && string(data[off:off+4]) == "PE\x00\x00" {
			return "PE"
		}
	}
	return ""
}

// isText reports whether a file's first bytes are UTF-8 text with no NUL.
func isText(data []byte) bool {
	head := data[:min(len(data), sniffBytes)]
	if bytes.IndexByte(head, 0) >= 0 {
		return false
	}
	// A rune cut at the end of the sniffed bytes is not invalid.
	for i := 0; i < utf8.UTFMax && len(head) > 0 && len(head) < len(data); i++ {
		if utf8.Valid(head) {
			return true
		}
		head = head[:len(head)-1]
	}
	return utf8.Valid(head)
}

// isMarkdown reports whether a file is read as Markdown: prose with code
// blocks and HTML comments.
func isMarkdown(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".md", ".markdown", ".mdx", ".txt", ".rst", "":
		return true
	}
	return false
}
