package skill

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"maps"

	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/cache"
)

// folderHead starts the stat record of a source folder (rule 11 of the
// package doc).
const folderHead = "agentadaptor folder stat v1"

// folderEntry is what a folder's record holds of one regular file: its
// stamp when it was last hashed, and the hash.
type folderEntry struct {
	stamp cache.Stamp
	sum   [32]byte
}

// folderRecord is the stat record of a source folder: the stamp and
// SHA-256 of every regular file, by slash-separated path, and when the
// stamps were taken (ns, taken before the first stat).
type folderRecord struct {
	dir   string
	taken int64
	files map[string]folderEntry
}

// folderCheck is one read of a folder with its record: old is the record
// read (nil when there was none usable), next the one this read makes.
type folderCheck struct {
	old    *folderRecord
	next   folderRecord
	stamps bool // every file had a stamp: next may be kept
	hashed int  // files read and hashed
}

// folderKey names the record of the folder dir (absolute) in the cache.
func folderKey(dir string) string {
	sum := sha256.Sum256([]byte("agentadaptor folder record v1\x00" + dir))
	return hex.EncodeToString(sum[:])
}

// folderDigest returns the ContentDigest of the folder dir (absolute),
// reading and hashing only the files whose stat differs from the
// folder's record in the cache, or is racy (rule 11), and writes the
// record again when it changed. Without a usable store it reads the
// whole folder, as ContentDigest does.
func (c *Cache) folderDigest(ctx context.Context, dir string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("digest skill folder %s: %w", dir, err)
	}
	if d, ok := cache.Verify(dir); ok {
		return d, nil
	}
	store, err := c.open()
	if err != nil {
		return digestFolder(ctx, dir, nil)
	}
	digest, _, err := c.folderDigestIn(ctx, store, dir)
	return digest, err
}

// folderDigestIn is folderDigest with the store, also returning how many
// files were hashed.
func (c *Cache) folderDigestIn(ctx context.Context, store *cache.Store, dir string) (string, int, error) {
	key := folderKey(dir)
	chk := &folderCheck{
		old:    parseFolderRecord(store.FolderRecord(key), dir),
		next:   folderRecord{dir: dir, taken: time.Now().UnixNano(), files: make(map[string]folderEntry)},
		stamps: true,
	}
	digest, err := digestFolder(ctx, dir, chk)
	if err != nil {
		return "", chk.hashed, err
	}
	if chk.worthKeeping(c.limits.MaxArchiveEntries) {
		store.SetFolderRecord(key, chk.next.encode()) // best effort: without it, the next read hashes all
	}
	return digest, chk.hashed, nil
}

// file returns the size and SHA-256 of the regular file at full (path p
// in the folder), whose Lstat is info: from the record when its stamp
// there equals info's and is not racy, otherwise read and hashed. A nil
// check always reads.
func (chk *folderCheck) file(full, p string, info fs.FileInfo) (cache.File, error) {
	if chk == nil {
		return hashFile(full)
	}
	st, ok := cache.StampOf(info)
	if !ok {
		chk.stamps = false
	} else if chk.old != nil {
		if e, found := chk.old.files[p]; found && e.stamp == st && !cache.Racy(e.stamp.Ctime, chk.old.taken) {
			chk.next.files[p] = e
			return cache.File{Size: st.Size, Sum: e.sum}, nil
		}
	}
	chk.hashed++
	f, err := hashFile(full)
	if err != nil {
		return f, err
	}
	// The stat came first: a change made while the file was read moves
	// its change time past the stamp, so the next read hashes it again.
	if ok && f.Size == st.Size {
		chk.next.files[p] = folderEntry{stamp: st, sum: f.Sum}
	} else {
		chk.stamps = false
	}
	return f, nil
}

// worthKeeping reports whether the record this read made should replace
// the one read: it is complete, within the entry limit, and differs from
// the old one or has fewer racy entries.
func (chk *folderCheck) worthKeeping(maxEntries int) bool {
	if !chk.stamps || len(chk.next.files) > maxEntries {
		return false
	}
	for p := range chk.next.files {
		if strings.ContainsAny(p, "\n\r") {
			return false
		}
	}
	old := chk.old
	if old == nil || !maps.Equal(old.files, chk.next.files) {
		return true
	}
	return chk.next.racyCount() < old.racyCount()
}

func (r *folderRecord) racyCount() int {
	n := 0
	for _, e := range r.files {
		if cache.Racy(e.stamp.Ctime, r.taken) {
			n++
		}
	}
	return n
}

// encode writes the record: a head, the folder, the time, and a line per
// file, in path order: sum, the six numbers of its stamp, path.
func (r *folderRecord) encode() []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\ndir %s\ntaken %d\n", folderHead, r.dir, r.taken)
	for _, p := range slices.Sorted(maps.Keys(r.files)) {
		e := r.files[p]
		s := e.stamp
		fmt.Fprintf(&b, "%x %d %d %d %d %d %d %s\n", e.sum, s.Mode, s.Size, s.Mtime, s.Ctime, s.Dev, s.Ino, p)
	}
	return []byte(b.String())
}

// parseFolderRecord reads a record of the folder dir; it returns nil for
// one that is missing, malformed, or of another folder, which is then
// ignored and rebuilt.
func parseFolderRecord(data []byte, dir string) *folderRecord {
	text, ok := strings.CutPrefix(string(data), folderHead+"\n")
	if !ok {
		return nil
	}
	lines := strings.Split(text, "\n")
	if len(lines) < 3 || lines[len(lines)-1] != "" {
		return nil
	}
	lines = lines[:len(lines)-1]
	if lines[0] != "dir "+dir {
		return nil
	}
	taken, ok := strings.CutPrefix(lines[1], "taken ")
	if !ok {
		return nil
	}
	r := &folderRecord{dir: dir, files: make(map[string]folderEntry, len(lines)-2)}
	var err error
	if r.taken, err = strconv.ParseInt(taken, 10, 64); err != nil {
		return nil
	}
	for _, l := range lines[2:] {
		f := strings.SplitN(l, " ", 8)
		if len(f) != 8 || len(f[0]) != 64 || !fs.ValidPath(f[7]) || f[7] == "." {
			return nil
		}
		var e folderEntry
		if _, err := hex.Decode(e.sum[:], []byte(f[0])); err != nil {
			return nil
		}
		var n [6]uint64
		for i := range n {
			if n[i], err = strconv.ParseUint(f[i+1], 10, 64); err != nil {
				return nil
			}
		}
		e.stamp = cache.Stamp{Mode: uint32(n[0]), Size: int64(n[1]), Mtime: int64(n[2]), Ctime: int64(n[3]), Dev: n[4], Ino: n[5]}
		if !fs.FileMode(e.stamp.Mode).IsRegular() {
			return nil
		}
		if _, dup := r.files[f[7]]; dup {
			return nil
		}
		r.files[f[7]] = e
	}
	return r
}
