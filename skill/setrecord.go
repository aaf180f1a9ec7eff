package skill

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/agentadaptor/agentadaptor/internal/bootid"
	"github.com/agentadaptor/agentadaptor/internal/cache"
)

// setHead starts the record of a skill set (rule 12 of the package doc).
const setHead = "agentadaptor skill set v2"

// The kinds of skill a set's record covers.
const (
	setTree   = 't' // an inline skill: a cached tree
	setFolder = 'd' // a folder used in place (a PathSource)
)

// maxSets bounds the records of skill sets a Cache holds; when it is
// reached the memory starts again empty.
const maxSets = 256

// setMember is a skill of a set that its record can cover: an inline
// skill (its content is part of the record's key) or a folder used in
// place (its stat record is part of the set's record).
type setMember struct {
	at    int    // its place in the skills given
	kind  byte   // setTree or setFolder
	name  string // runtime name
	ident string // the inline SKILL.md, or the folder's absolute path
}

// setSkill is what a set's record holds of one covered skill: what a
// full materialization returned, and the stamps that vouch for it.
type setSkill struct {
	member int    // its place among the set's members
	kind   byte   // setTree or setFolder
	name   string // runtime name
	digest string
	dir    string      // the folder returned: <root>/<digest>/<name>, or the folder itself
	taken  int64       // when the stamps were taken (ns), for the racy rule
	top    cache.Stamp // a tree's <digest> folder: its device and inode count
	stamps []cache.PathStamp
}

// setRecord is the record of a skill set: its covered skills, in the
// order of its members. It is never changed once made, but for the time
// of the last use of its trees it records.
type setRecord struct {
	key    string
	skills []setSkill
	used   atomic.Int64 // when vouch last recorded the use of its trees (ns)
}

// MaterializeSet materializes skills, as [Cache.MaterializeContent] does
// each, and returns their folders and content digests in the order of
// skills. Skills whose sources can be vouched for by stat (inline skills,
// whose content is part of the key, and folders used in place) are found
// through the record of the set (rule 12): a warm call stats each of
// their files and folders once and reads or hashes nothing. Every other
// skill, and any skill the record cannot vouch for, is materialized as
// MaterializeContent would, at most GOMAXPROCS at a time. The first
// failure is returned, a *[SkillMaterializationError] naming its skill.
func (c *Cache) MaterializeSet(ctx context.Context, skills []Skill) (dirs, digests []string, err error) {
	dirs, digests = make([]string, len(skills)), make([]string, len(skills))
	done := make([]bool, len(skills))
	var members []setMember
	var store *cache.Store
	var key string
	var old *setRecord
	if c.root != "" && ctx.Err() == nil {
		members = setMembers(skills)
	}
	if len(members) > 0 {
		if store, err = c.open(); err != nil {
			members = nil // materialized one by one, which reports the error
		}
	}
	if len(members) > 0 {
		key = c.setKey(members)
		if old = c.setRecordOf(store, key, members); old != nil {
			old.vouch(store, members, dirs, digests, done)
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	rest := 0
	for i, s := range skills {
		if done[i] {
			continue
		}
		rest++
		g.Go(func() error {
			var err error
			dirs[i], digests[i], err = c.run(gctx, s, true)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	// The record is made again only when it left out a skill it covers:
	// skills it never covers (an FS tree, an archive) are materialized
	// one by one every time and change nothing in it.
	if rest > 0 && slices.ContainsFunc(members, func(m setMember) bool { return !done[m.at] }) {
		c.recordSet(store, key, old, members, dirs, digests)
	}
	return dirs, digests, nil
}

// setMembers returns the skills of a set that its record can cover.
func setMembers(skills []Skill) []setMember {
	var out []setMember
	for i, s := range skills {
		name, err := RuntimeName(s)
		if err != nil {
			continue
		}
		src, ok := canonical(s.Source)
		if !ok {
			continue
		}
		switch src := src.(type) {
		case InlineSource:
			out = append(out, setMember{at: i, kind: setTree, name: name, ident: src.SkillMD})
		case PathSource:
			if src.Path == "" {
				continue
			}
			abs, err := filepath.Abs(src.Path)
			if err != nil {
				continue
			}
			out = append(out, setMember{at: i, kind: setFolder, name: name, ident: abs})
		}
	}
	return out
}

// setKey names the record of a set: its members' runtime names, kinds
// and sources, the cache's root and the limits a materialization obeys.
func (c *Cache) setKey(members []setMember) string {
	e := cache.NewEncoder()
	e.Str(setHead)
	e.Str(c.root)
	e.U64(uint64(c.limits.MaxFileSize))
	e.U64(uint64(c.limits.MaxTotalSize))
	e.U64(uint64(c.limits.MaxArchiveEntries))
	e.U64(uint64(len(members)))
	for _, m := range members {
		e.Str(m.name)
		e.Byte(m.kind)
		e.Str(m.ident)
	}
	return e.Hex()
}

// setRecordOf returns the record of the set named key: the one this Cache
// holds, else the one in the store, when it is well formed and fits
// members; nil otherwise.
func (c *Cache) setRecordOf(store *cache.Store, key string, members []setMember) *setRecord {
	c.mu.Lock()
	r, held := c.sets[key]
	c.mu.Unlock()
	if held {
		return r
	}
	r = parseSetRecord(store.SkillSet(key), key, members, store)
	if r != nil {
		c.keepSet(r)
	}
	return r
}

func (c *Cache) keepSet(r *setRecord) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sets == nil || len(c.sets) >= maxSets {
		c.sets = make(map[string]*setRecord)
	}
	c.sets[r.key] = r
}

// vouch fills in dirs and digests of the members the record vouches for
// and marks them done: the cache's root is where it was opened, and every
// stamp the record holds of the skill is what a stat finds now, and not
// racy. The skills are checked by up to GOMAXPROCS goroutines, a share
// each, when there are many.
func (r *setRecord) vouch(store *cache.Store, members []setMember, dirs, digests []string, done []bool) {
	if !store.Same() {
		return
	}
	// The <digest> folders of the trees are looked at, and their use
	// recorded (rule 7 of package cache), when the record last saw a use
	// recorded more than a second ago: that is when a lookup would
	// record one.
	now := time.Now().UnixNano()
	touch := now-r.used.Load() > int64(time.Second)
	workers := min(runtime.GOMAXPROCS(0), (len(r.skills)+vouchShare-1)/vouchShare)
	var wg sync.WaitGroup
	for w := range max(workers, 1) {
		wg.Go(func() {
			for i := w; i < len(r.skills); i += max(workers, 1) {
				s := &r.skills[i]
				m := members[s.member]
				if m.name != s.name || m.kind != s.kind || !s.holds() {
					continue
				}
				if s.kind == setTree && touch {
					top, ok := store.Top(s.digest)
					if !ok || top.Dev != s.top.Dev || top.Ino != s.top.Ino || top.Mode != s.top.Mode {
						continue
					}
				}
				dirs[m.at], digests[m.at], done[m.at] = s.dir, s.digest, true
			}
		})
	}
	wg.Wait()
	if touch {
		r.used.Store(now)
	}
}

// vouchShare is how many skills of a set one goroutine checks at least.
const vouchShare = 64

// holds reports whether the skill's files and folders are as recorded:
// each stamp is what a stat finds now and is not racy. A folder used in
// place is stat'ed as rule 11 reads it (the folder itself followed if it
// is a link, everything in it not), and its SKILL.md must be a regular
// file, or a link to one, as rule 1 requires.
func (s *setSkill) holds() bool {
	for i, ps := range s.stamps {
		p := s.dir
		if ps.Path != "." {
			// The path is a valid fs path and s.dir a clean absolute
			// folder (records are kept only where there are stamps: never
			// on Windows), so joining needs no cleaning.
			p = s.dir + string(filepath.Separator) + filepath.FromSlash(ps.Path)
		}
		var fi os.FileInfo
		var err error
		if i == 0 && s.kind == setFolder {
			fi, err = os.Stat(p)
		} else {
			fi, err = os.Lstat(p)
		}
		if err != nil {
			return false
		}
		st, ok := cache.StampOf(fi)
		if !ok || st != ps.Stamp || cache.Racy(st.Ctime, s.taken) {
			return false
		}
		if s.kind == setFolder && ps.Path == "SKILL.md" && !fs.FileMode(st.Mode).IsRegular() {
			if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
				return false
			}
		}
	}
	return true
}

// recordSet makes the record of the set from what this Cache's checks
// vouched for while materializing it (the stamps of each tree's last
// check, the stat record of each folder read), and keeps it, writing it
// to the store when it differs from old or fewer of its stamps are racy.
// A member without such stamps is left out of the record: it is
// materialized one by one every time.
func (c *Cache) recordSet(store *cache.Store, key string, old *setRecord, members []setMember, dirs, digests []string) {
	next := &setRecord{key: key}
	for j, m := range members {
		s, ok := c.setSkillOf(store, m, dirs[m.at], digests[m.at])
		if ok {
			s.member = j
			next.skills = append(next.skills, s)
		}
	}
	if len(next.skills) == 0 {
		return
	}
	if old != nil && old.sameStamps(next) && next.racyCount() >= old.racyCount() {
		return
	}
	c.keepSet(next)
	store.SetSkillSet(key, next.encode()) // best effort: without it, the next process materializes one by one
}

// setSkillOf returns what the record of a set holds of the member m,
// materialized in dir with digest, when this Cache's checks vouched for
// it.
func (c *Cache) setSkillOf(store *cache.Store, m setMember, dir, digest string) (setSkill, bool) {
	s := setSkill{kind: m.kind, name: m.name, digest: digest, dir: dir}
	switch m.kind {
	case setTree:
		if dir != store.Path(digest, m.name) {
			return s, false
		}
		taken, stamps, ok := store.TreeStamps(digest, m.name)
		if !ok || len(stamps) == 0 || stamps[0].Path != "." {
			return s, false
		}
		top, ok := store.Top(digest)
		if !ok {
			return s, false
		}
		s.taken, s.stamps, s.top = taken, stamps, top
	case setFolder:
		c.mu.Lock()
		rec := c.folders[dir]
		c.mu.Unlock()
		if dir != m.ident || rec == nil || rec.digest == "" || rec.digest != digest {
			return s, false
		}
		s.taken = rec.taken
		for _, p := range slices.SortedFunc(maps.Keys(rec.entries), compareSetPaths) {
			s.stamps = append(s.stamps, cache.PathStamp{Path: p, Stamp: rec.entries[p].stamp})
		}
		if len(s.stamps) == 0 || s.stamps[0].Path != "." {
			return s, false
		}
	}
	return s, true
}

// compareSetPaths orders paths "." first, then by bytes.
func compareSetPaths(a, b string) int {
	switch {
	case a == b:
		return 0
	case a == ".":
		return -1
	case b == ".":
		return 1
	}
	return strings.Compare(a, b)
}

// sameStamps reports whether r and o cover the same skills with the same
// stamps.
func (r *setRecord) sameStamps(o *setRecord) bool {
	return slices.EqualFunc(r.skills, o.skills, func(a, b setSkill) bool {
		return a.member == b.member && a.kind == b.kind && a.name == b.name && a.digest == b.digest &&
			a.dir == b.dir && a.top == b.top && slices.Equal(a.stamps, b.stamps)
	})
}

func (r *setRecord) racyCount() int {
	n := 0
	for _, s := range r.skills {
		for _, ps := range s.stamps {
			if cache.Racy(ps.Ctime, s.taken) {
				n++
			}
		}
	}
	return n
}

// encode writes the record: a head, the id of the boot that wrote it, its key, how many skills it covers,
// for each a line (its place among the members, kind, time, digest,
// runtime name and folder in hex, the <digest> folder's mode, device and
// inode, how many stamps follow) and a line per stamp (its six numbers
// and path in hex), and last the SHA-256 of everything before it, so a
// record cut short or damaged anywhere is refused.
func (r *setRecord) encode() []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n%s\nkey %s\nskills %d\n", setHead, bootid.Line(), r.key, len(r.skills))
	for _, s := range r.skills {
		fmt.Fprintf(&b, "s %d %c %d %s %x %x %d %d %d %d\n", s.member, s.kind, s.taken, s.digest, s.name, s.dir, s.top.Mode, s.top.Dev, s.top.Ino, len(s.stamps))
		for _, ps := range s.stamps {
			fmt.Fprintf(&b, "%d %d %d %d %d %d %x\n", ps.Mode, ps.Size, ps.Mtime, ps.Ctime, ps.Dev, ps.Ino, ps.Path)
		}
	}
	sum := sha256.Sum256([]byte(b.String()))
	fmt.Fprintf(&b, "sum %x\n", sum)
	return []byte(b.String())
}

// parseSetRecord reads the record of the set named key whose members are
// members, in the store; it returns nil for one that is missing, cut
// short, damaged (its sum), malformed, of another boot (package bootid's
// rule 1), of another key, or that does not
// fit the members (a place out of order or range, another kind or
// runtime name, a folder other than the member's or than the tree's
// place in the store, a skill without stamps or one whose first is not
// its folder's): such a record is ignored, and the set is materialized
// one by one and recorded again.
func parseSetRecord(data []byte, key string, members []setMember, store *cache.Store) *setRecord {
	text := string(data)
	body, sumLine, ok := cutLastLine(text)
	if !ok {
		return nil
	}
	want := sha256.Sum256([]byte(body))
	if sumLine != "sum "+hex.EncodeToString(want[:]) {
		return nil
	}
	lines := strings.Split(body, "\n")
	if len(lines) < 5 || lines[len(lines)-1] != "" {
		return nil
	}
	lines = lines[:len(lines)-1]
	if lines[0] != setHead || !bootid.IsLine(lines[1]) || lines[2] != "key "+key {
		return nil
	}
	n, err := strconv.Atoi(strings.TrimPrefix(lines[3], "skills "))
	if err != nil || !strings.HasPrefix(lines[3], "skills ") || n < 1 || n > len(members) {
		return nil
	}
	r := &setRecord{key: key, skills: make([]setSkill, 0, n)}
	lines = lines[4:]
	for range n {
		if len(lines) == 0 {
			return nil
		}
		s, count, ok := parseSetSkill(lines[0])
		if !ok || count < 1 || count > len(lines)-1 {
			return nil
		}
		if s.member < 0 || s.member >= len(members) || (len(r.skills) > 0 && s.member <= r.skills[len(r.skills)-1].member) {
			return nil
		}
		m := members[s.member]
		if s.kind != m.kind || s.name != m.name {
			return nil
		}
		if (s.kind == setFolder && s.dir != m.ident) || (s.kind == setTree && s.dir != store.Path(s.digest, s.name)) {
			return nil
		}
		s.stamps = make([]cache.PathStamp, count)
		for i := range count {
			ps, ok := parsePathStamp(lines[1+i])
			if !ok || (i == 0) != (ps.Path == ".") || (i > 0 && compareSetPaths(s.stamps[i-1].Path, ps.Path) >= 0) {
				return nil
			}
			s.stamps[i] = ps
		}
		if !fs.FileMode(s.stamps[0].Mode).IsDir() {
			return nil
		}
		r.skills = append(r.skills, s)
		lines = lines[1+count:]
	}
	if len(lines) != 0 {
		return nil
	}
	return r
}

// cutLastLine splits text into everything up to and including the
// newline before its last line, and that last line without its newline.
func cutLastLine(text string) (body, last string, ok bool) {
	if !strings.HasSuffix(text, "\n") {
		return "", "", false
	}
	i := strings.LastIndexByte(text[:len(text)-1], '\n')
	if i < 0 {
		return "", "", false
	}
	return text[:i+1], text[i+1 : len(text)-1], true
}

// parseSetSkill reads the line of one skill, and how many stamps follow.
func parseSetSkill(l string) (setSkill, int, bool) {
	var s setSkill
	f := strings.Split(l, " ")
	if len(f) != 11 || f[0] != "s" || len(f[2]) != 1 {
		return s, 0, false
	}
	var err error
	if s.member, err = strconv.Atoi(f[1]); err != nil {
		return s, 0, false
	}
	s.kind = f[2][0]
	if s.kind != setTree && s.kind != setFolder {
		return s, 0, false
	}
	if s.taken, err = strconv.ParseInt(f[3], 10, 64); err != nil {
		return s, 0, false
	}
	s.digest = f[4]
	if len(s.digest) != 64 || strings.Trim(s.digest, "0123456789abcdef") != "" {
		return s, 0, false
	}
	name, err1 := hex.DecodeString(f[5])
	dir, err2 := hex.DecodeString(f[6])
	if err1 != nil || err2 != nil {
		return s, 0, false
	}
	s.name, s.dir = string(name), string(dir)
	var top [3]uint64
	for i := range top {
		if top[i], err = strconv.ParseUint(f[7+i], 10, 64); err != nil {
			return s, 0, false
		}
	}
	s.top = cache.Stamp{Mode: uint32(top[0]), Dev: top[1], Ino: top[2]}
	count, err := strconv.Atoi(f[10])
	if err != nil {
		return s, 0, false
	}
	return s, count, true
}

// parsePathStamp reads the line of one stamp.
func parsePathStamp(l string) (cache.PathStamp, bool) {
	var ps cache.PathStamp
	f := strings.Split(l, " ")
	if len(f) != 7 {
		return ps, false
	}
	var n [6]uint64
	for i := range n {
		var err error
		if n[i], err = strconv.ParseUint(f[i], 10, 64); err != nil {
			return ps, false
		}
	}
	p, err := hex.DecodeString(f[6])
	if err != nil || !fs.ValidPath(string(p)) {
		return ps, false
	}
	ps.Path = string(p)
	ps.Stamp = cache.Stamp{Mode: uint32(n[0]), Size: int64(n[1]), Mtime: int64(n[2]), Ctime: int64(n[3]), Dev: n[4], Ino: n[5]}
	return ps, true
}
