package extract

import (
	"fmt"
	"io/fs"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Name limits. They keep every tree portable to the file systems agents run
// on; see the package doc for the full list of rules.
const (
	// MaxNameLen is the longest path element accepted, in bytes.
	MaxNameLen = 255
	// MaxPathLen is the longest relative path accepted, in bytes.
	MaxPathLen = 1024
	// MaxDepth is the most path elements a path may have.
	MaxDepth = 32
)

// CheckPath reports whether name is a safe, portable, slash-separated
// relative path for a file or folder inside a skill. It applies rules 1-6
// of the package doc and returns an error wrapping [ErrUnsafe] that names
// the rule broken.
func CheckPath(name string) error {
	if name == "" {
		return unsafeEntry(name, "empty name")
	}
	if len(name) > MaxPathLen {
		return unsafeEntry(short(name), fmt.Sprintf("path is %d bytes; the limit is %d", len(name), MaxPathLen))
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c < 0x20 || c == 0x7f:
			return unsafeEntry(name, fmt.Sprintf("control character %#02x in name", c))
		case c == '\\':
			return unsafeEntry(name, "backslash in name (Windows separators are not allowed)")
		case c == ':':
			return unsafeEntry(name, "colon in name (drive letters and streams are not allowed)")
		}
	}
	if name[0] == '/' {
		return unsafeEntry(name, "absolute path")
	}
	if !utf8.ValidString(name) {
		return unsafeEntry(name, "name is not valid UTF-8")
	}
	if !fs.ValidPath(name) || name == "." {
		return unsafeEntry(name, `empty, "." or ".." path element`)
	}
	depth := 0
	for elem := range strings.SplitSeq(name, "/") {
		depth++
		if err := checkElem(elem); err != nil {
			return unsafeEntry(name, err.Error())
		}
	}
	if depth > MaxDepth {
		return unsafeEntry(short(name), fmt.Sprintf("path is %d levels deep; the limit is %d", depth, MaxDepth))
	}
	return nil
}

// CheckName reports whether name is usable as a single folder name, such as
// a skill's runtime name: one path element obeying [CheckPath], not hidden.
func CheckName(name string) error {
	if strings.Contains(name, "/") {
		return unsafeEntry(name, "a single path element is required")
	}
	if err := CheckPath(name); err != nil {
		return err
	}
	if strings.HasPrefix(name, ".") {
		return unsafeEntry(name, "hidden name")
	}
	return nil
}

// checkElem applies the per-element rules of the package doc.
func checkElem(elem string) error {
	if len(elem) > MaxNameLen {
		return fmt.Errorf("path element is %d bytes; the limit is %d", len(elem), MaxNameLen)
	}
	for _, r := range elem {
		if !allowedRune(r) {
			return fmt.Errorf("character %q is not allowed in a portable name", r)
		}
	}
	if last := elem[len(elem)-1]; last == '.' || last == ' ' {
		return fmt.Errorf("path element %q ends in a dot or space", elem)
	}
	if elem[0] == ' ' {
		return fmt.Errorf("path element %q starts with a space", elem)
	}
	base, _, _ := strings.Cut(elem, ".")
	if isReserved(base) {
		return fmt.Errorf("%q is a reserved name on Windows", elem)
	}
	if i := strings.LastIndexByte(base, '~'); i >= 0 && i < len(base)-1 {
		if strings.Trim(base[i+1:], "0123456789") == "" {
			return fmt.Errorf("%q looks like a Windows short name", elem)
		}
	}
	return nil
}

// allowedRune is the portable character set: ASCII letters and digits, a
// few punctuation marks that every file system accepts, and letters of any
// script. Combining marks are refused, so a decomposed twin of a name can
// not be spelled.
func allowedRune(r rune) bool {
	if r < utf8.RuneSelf {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' {
			return true
		}
		return strings.ContainsRune("!#$%&()+,-.=@[]^_{}~ ", r)
	}
	return unicode.IsLetter(r)
}

// IsReservedName reports whether the path element name names a Windows
// device (CON, nul.txt, COM1.x: the part before the first dot, in any
// case), which no file or folder can be called there.
func IsReservedName(name string) bool {
	base, _, _ := strings.Cut(name, ".")
	return isReserved(base)
}

var reservedNames = []string{"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"}

// isReserved reports whether base (an element up to its first dot) names a
// Windows device.
func isReserved(base string) bool {
	base = strings.TrimRight(base, " ")
	for _, r := range reservedNames {
		if strings.EqualFold(base, r) {
			return true
		}
	}
	if len(base) < 4 {
		return false
	}
	prefix := strings.ToUpper(base[:3])
	if prefix != "COM" && prefix != "LPT" {
		return false
	}
	switch rest := base[3:]; rest {
	case "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "¹", "²", "³":
		return true
	}
	return false
}

// caseFolder computes the key under which two names collide on a
// case-insensitive, normalizing file system (Unicode case folding).
type caseFolder struct {
	caser cases.Caser
}

func newCaseFolder() *caseFolder { return &caseFolder{caser: cases.Fold()} }

func (f *caseFolder) key(name string) string {
	ascii := true
	for i := 0; i < len(name); i++ {
		if name[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(name)
	}
	return norm.NFC.String(f.caser.String(norm.NFKC.String(name)))
}

// short abbreviates a long name for an error message.
func short(name string) string {
	if len(name) <= 80 {
		return name
	}
	return name[:60] + "..." + name[len(name)-16:]
}
