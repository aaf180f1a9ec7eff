package agentdir

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/cache"
)

// stampMagic starts every stamp (rule 12).
const stampMagic = "agentadaptor stamp v1"

// maxStamp is the size of the largest stamp read.
const maxStamp = 1 << 16

// Settling times of rule 12: how long before a snapshot a folder must
// have last changed for the snapshot to be trusted, for file systems that
// keep change times below the second and for those that keep whole
// seconds.
const (
	settleFine   = 100 * time.Millisecond
	settleCoarse = 3 * time.Second
)

// Snapshot is the state of some folders, read at one moment (rule 12):
// for each, its device, inode, mode, size, modification and change times.
type Snapshot struct {
	at     time.Time
	states string
	ctimes []int64
}

// Snap reads the state of the folders dirs now. It returns nil when one
// cannot be read, or when the system gives no change times (neither
// Linux nor macOS): then no stamp is written.
func Snap(dirs ...string) *Snapshot {
	s := &Snapshot{at: time.Now()}
	var b strings.Builder
	for _, d := range dirs {
		fi, err := os.Lstat(d)
		if err != nil {
			return nil
		}
		c, ok := changeTime(fi)
		if !ok {
			return nil
		}
		dev, ino := fileID(fi)
		fmt.Fprintf(&b, "%d %d %o %d %d %d %q\n", dev, ino, uint32(fi.Mode()), fi.Size(), fi.ModTime().UnixNano(), c, d)
		s.ctimes = append(s.ctimes, c)
	}
	s.states = b.String()
	return s
}

// Same reports whether s and o hold the same state of the same folders.
func (s *Snapshot) Same(o *Snapshot) bool {
	return s != nil && o != nil && s.states == o.states
}

// settled reports whether, at the moment at, every folder of s had last
// changed long enough before for a later change to get another change
// time, however coarse the file system's clock (rule 12).
func (s *Snapshot) settled(at time.Time) bool {
	for _, c := range s.ctimes {
		settle := settleFine
		if c%int64(time.Second) == 0 {
			settle = settleCoarse
		}
		if at.UnixNano()-c < int64(settle) {
			return false
		}
	}
	return true
}

// stampPath is where the stamp name of the lease's key is.
func (l *Lease) stampPath(name string) string {
	return filepath.Join(l.base, l.key+".stamp-"+name)
}

// Unchanged reports whether the key's stamp name says that the folders
// dirs are as a check against want found them (rule 12): the stamp is a
// regular file written for want, each folder's state is the one it
// records, and each had settled when that state was read.
func (l *Lease) Unchanged(name, want string, dirs ...string) bool {
	f, err := os.OpenFile(l.stampPath(name), os.O_RDONLY|noFollow, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() > maxStamp {
		return false
	}
	data, err := io.ReadAll(io.LimitReader(f, maxStamp))
	if err != nil {
		return false
	}
	lines := bytes.SplitN(data, []byte("\n"), 4)
	if len(lines) != 4 || string(lines[0]) != stampMagic || string(lines[1]) != want {
		return false
	}
	at, err := strconv.ParseInt(string(lines[2]), 10, 64)
	if err != nil {
		return false
	}
	now := Snap(dirs...)
	return now != nil && now.states == string(lines[3]) && now.settled(time.Unix(0, at))
}

// Stamp records s, read before a check against want that found the
// folders right and changed nothing, as the key's stamp name (rule 12).
// It writes nothing when s is nil or its folders had not settled when it
// was read. A stamp that cannot be written is no error: the next run
// checks in full.
func (l *Lease) Stamp(name, want string, s *Snapshot) {
	if s == nil || !s.settled(s.at) {
		return
	}
	data := stampMagic + "\n" + want + "\n" + strconv.FormatInt(s.at.UnixNano(), 10) + "\n" + s.states
	writeNew(l.stampPath(name), []byte(data))
}

// SyncLinks is [SyncLinks] for the folder dir of the lease's key, skipped
// when the key's stamp name says that dir is as the last SyncLinks for
// the same want left it (rule 12). A SyncLinks that changed nothing
// writes the stamp.
func (l *Lease) SyncLinks(name, dir string, want map[string]string) error {
	w := linksDigest(want)
	if l.Unchanged(name, w, dir) {
		return nil
	}
	before := Snap(dir)
	if err := SyncLinks(dir, want); err != nil {
		return err
	}
	if before.Same(Snap(dir)) {
		l.Stamp(name, w, before)
	}
	return nil
}

// linksDigest digests a want of [SyncLinks]: each name and target, by
// name.
func linksDigest(want map[string]string) string {
	names := make([]string, 0, len(want))
	for n := range want {
		names = append(names, n)
	}
	slices.Sort(names)
	e := cache.NewEncoder()
	e.Str("agentadaptor links v1")
	e.U64(uint64(len(names)))
	for _, n := range names {
		e.Str(n)
		e.Str(want[n])
	}
	return e.Hex()
}

// File returns the file <key>.<pattern> beside the key's folder, with the
// first 16 hexadecimal digits of the SHA-256 of data in place of the
// pattern's "*", holding data (rule 13): a regular file that holds it
// already is used as it is, else data is written to a new file that is
// renamed into place (0600). Runs whose files differ get files of their
// own.
func (l *Lease) File(pattern string, data []byte) (string, error) {
	sum := sha256.Sum256(data)
	name := l.key + "." + strings.Replace(pattern, "*", hex.EncodeToString(sum[:8]), 1)
	p := filepath.Join(l.base, name)
	if holds(p, data) {
		return p, nil
	}
	if err := writeNew(p, data); err != nil {
		return "", fmt.Errorf("write %s: %w", p, err)
	}
	return p, nil
}

// writeNew writes data to a new file beside p, p's name with
// ".tmp-RANDOM" added (0600), and renames it to p.
func writeNew(p string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(p), filepath.Base(p)+".tmp-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), p)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// holds reports whether p is a regular file (not a link) that holds
// exactly data.
func holds(p string, data []byte) bool {
	f, err := os.OpenFile(p, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() != int64(len(data)) {
		return false
	}
	got := make([]byte, len(data)+1)
	n, _ := io.ReadFull(f, got)
	return n == len(data) && bytes.Equal(got[:n], data)
}
