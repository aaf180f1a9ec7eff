package install

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/bootid"
	"github.com/agentadaptor/agentadaptor/internal/skillcache"
)

// FuzzParseStampsAsBefore checks parseStamps, which reads a record in
// place, against refStamps, the plain reading it replaced (splitting the
// record into lines and fields): on any body, with a head and a sum that
// hold, both accept the same records and read the same folders.
func FuzzParseStampsAsBefore(f *testing.F) {
	f.Add([]byte("F 2f78 " + strings.Repeat("ab", 32) + " 5 2 \nd 1 2147484141 4096 1 2 3 4 2e\nf 0 420 1 1 2 3 5 534b494c4c2e6d64\n"))
	f.Add([]byte("F 2f78 " + strings.Repeat("ab", 32) + " 5 4 6f6e65\nd 1 2147484141 4096 1 2 3 4 2e\nd 2 2147484141 4096 1 2 3 4 61\nf 0 420 1 1 2 3 5 612f62\nf 0 420 1 1 2 3 5 612f63\n"))
	f.Add([]byte("F 2f78 " + strings.Repeat("ab", 32) + " 5 2 \nd 0 2147484141 4096 1 2 3 4 2e\nf 0 420 1 1 2 3 5 61\n"))
	f.Add([]byte("F 2f78 " + strings.Repeat("ab", 32) + " 5 2 \nd 1 2147484141 4096 1 2 3 4 2e\nf 0 420 1 1 2 3 5 2e\n"))
	f.Add([]byte("F 2f78 " + strings.Repeat("ab", 32) + " 5 1 \nd 9223372036854775808 2147484141 4096 1 2 3 4 2e\n"))
	f.Add([]byte(""))
	f.Add([]byte("\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		if bootid.ID() == "" {
			t.Skip("no boot id")
		}
		content := append([]byte(stampHead+"\n"+bootid.Line()+"\n"), body...)
		data := fmt.Appendf(content, "sum %x\n", sha256.Sum256(content))
		got, want := parseStamps(data), refStamps(data)
		if len(got) != len(want) {
			t.Fatalf("parseStamps read %d folders, refStamps %d", len(got), len(want))
		}
		for dir, f := range want {
			if g := got[dir]; g == nil || !g.same(f) || g.taken != f.taken {
				t.Fatalf("parseStamps[%s] = %+v, refStamps %+v", dir, g, f)
			}
		}
	})
}

func refStamps(data []byte) map[string]*stampedFolder {
	out := map[string]*stampedFolder{}
	if !bytes.HasSuffix(data, []byte("\n")) {
		return out
	}
	j := bytes.LastIndexByte(data[:len(data)-1], '\n')
	content, last := data[:j+1], string(data[j+1:])
	body, ok := bytes.CutPrefix(content, []byte(stampHead+"\n"+bootid.Line()+"\n"))
	if !ok || bootid.ID() == "" || last != fmt.Sprintf("sum %x\n", sha256.Sum256(content)) {
		return out
	}
	rest := strings.Split(string(body), "\n")
	rest = rest[:len(rest)-1]
	for len(rest) > 0 {
		dir, f, n, ok := refStampedFolder(rest[0])
		if !ok || n > len(rest)-1 || out[dir] != nil {
			return map[string]*stampedFolder{}
		}
		if f.entries, ok = refStampedEntries(rest[1 : 1+n]); !ok {
			return map[string]*stampedFolder{}
		}
		out[dir] = f
		rest = rest[1+n:]
	}
	return out
}

// refStampedFolder reads a folder's line: its path, the folder, and
// how many entry lines follow.
func refStampedFolder(l string) (string, *stampedFolder, int, bool) {
	fields := strings.Split(l, " ")
	if len(fields) != 6 || fields[0] != "F" {
		return "", nil, 0, false
	}
	checked, err := hex.DecodeString(fields[5])
	if err != nil || checkName(string(checked)) != nil && len(checked) > 0 {
		return "", nil, 0, false
	}
	p, err := hex.DecodeString(fields[1])
	dir := string(p)
	if err != nil || !filepath.IsAbs(dir) || filepath.Clean(dir) != dir {
		return "", nil, 0, false
	}
	if d := fields[2]; len(d) != 64 || strings.Trim(d, "0123456789abcdef") != "" {
		return "", nil, 0, false
	}
	taken, err1 := strconv.ParseInt(fields[3], 10, 64)
	n, err2 := strconv.Atoi(fields[4])
	if err1 != nil || err2 != nil || n < 1 {
		return "", nil, 0, false
	}
	return dir, &stampedFolder{digest: strings.Clone(fields[2]), taken: taken, checked: string(checked)}, n, true
}

// refStampedEntries reads a folder's entry lines: "." first, each
// path once, each but "." inside a folder listed before it, and each
// folder holding as many entries as its line says.
func refStampedEntries(lines []string) ([]stampedEntry, bool) {
	entries := make([]stampedEntry, 0, len(lines))
	held := map[string]int{} // a folder's: the entries it holds not yet read
	seen := map[string]bool{}
	for i, l := range lines {
		fields := strings.Split(l, " ")
		if len(fields) != 9 || len(fields[0]) != 1 {
			return nil, false
		}
		var n [7]uint64
		for j := range n {
			var err error
			if n[j], err = strconv.ParseUint(fields[j+1], 10, 64); err != nil {
				return nil, false
			}
		}
		p, err := hex.DecodeString(fields[8])
		if err != nil || !fs.ValidPath(string(p)) || (i == 0) != (string(p) == ".") {
			return nil, false
		}
		e := stampedEntry{path: string(p), held: int(n[0]), stamp: skillcache.Stamp{Mode: uint32(n[1]), Size: int64(n[2]), Mtime: int64(n[3]), Ctime: int64(n[4]), Dev: n[5], Ino: n[6]}}
		mode := fs.FileMode(e.stamp.Mode)
		switch {
		case fields[0] == "d" && mode.IsDir():
			held[e.path] = e.held
		case fields[0] == "f" && mode.IsRegular() && e.held == 0:
		default:
			return nil, false
		}
		if seen[e.path] {
			return nil, false
		}
		seen[e.path] = true
		if i > 0 {
			parent := path.Dir(e.path)
			if _, ok := held[parent]; !ok {
				return nil, false
			}
			held[parent]--
		}
		entries = append(entries, e)
	}
	for _, left := range held {
		if left != 0 {
			return nil, false
		}
	}
	return entries, true
}
