package install

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"

	"github.com/agentadaptor/agentadaptor/internal/atomicfile"
	"github.com/agentadaptor/agentadaptor/internal/readfile"
)

// verdict is what the skill cache remembers of a published source this
// machine read at a pin and verified (Trust rules 3 and 4): the content
// digest of a skill found there and, when the policy required the
// commit signed, the keys the commit was verified with and who signed
// it. A sync takes a recorded skill from the skill cache only when a
// verdict ties its digest to the recorded source and pin (cachedOK); the
// lock file's word alone is never trusted, as a lock file may have been
// written elsewhere.
type verdict struct {
	Source string `json:"source"` // KIND:LOCATION, as the policy sees the source
	Pin    string `json:"pin"`
	Digest string `json:"digest"`
	Keys   string `json:"keys,omitempty"`   // commitKeys of the rules verified, or ""
	Signer string `json:"signer,omitempty"` // who signed the commit, or ""
}

// maxVerdict bounds a verdict read back: one larger is not used.
const maxVerdict = 16 << 10

// maxKeysFile bounds an allowed-signers file or keyring commitKeys
// reads: one larger gives no verdict (the commit is checked each time).
const maxKeysFile = 64 << 20

// verdictKey names the verdict of content digest read from source at
// pin, verified with keys: a file under the cache's .pins folder named
// by a SHA-256 of the four.
func verdictKey(source, pin, digest, keys string) string {
	sum := sha256.Sum256([]byte("verdict\x00" + source + "\x00" + pin + "\x00" + digest + "\x00" + keys))
	return hex.EncodeToString(sum[:]) + ".verdict"
}

// verdictSource is the source st checks, as a verdict names it: its
// kind and canonical location.
func (st *sourceTrust) verdictSource() string {
	return string(st.ps.Kind) + ":" + st.ps.Location
}

// commitKeys is a digest of the allowed-signers files and keyrings of
// every commits rule of st, as they read now, in order; "" when no rule
// applies. ok is false when one cannot be read (or is larger than
// maxKeysFile): no verdict is written or used then.
func (st *sourceTrust) commitKeys() (string, bool) {
	if len(st.commits) == 0 {
		return "", true
	}
	h := sha256.New()
	for _, r := range st.commits {
		for _, file := range []string{r.AllowedSigners, r.GPGKeyring} {
			if file == "" {
				io.WriteString(h, "-\x00")
				continue
			}
			sum, ok := fileSum(file)
			if !ok {
				return "", false
			}
			io.WriteString(h, sum+"\x00")
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), true
}

// fileSum is the SHA-256 of the regular file name, of at most
// maxKeysFile bytes.
func fileSum(name string) (string, bool) {
	f, err := os.Open(name)
	if err != nil {
		return "", false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, maxKeysFile+1))
	if err != nil || n > maxKeysFile {
		return "", false
	}
	return hex.EncodeToString(h.Sum(nil)), true
}

// rememberVerdict records, for the skill c whose content digest is
// digest in the skill cache, that its source was verified at its pin,
// when it was: c was read at the pin its source's checks verified just
// now (verifyPin), with the network. Failing to write it costs a check
// with the network later, nothing more.
//
// The verdict is written unflushed (atomicfile.WriteUnflushed), so an
// add of many skills makes no flush for them: it is a sealed JSON
// document (a SHA-256 of its body inside it) that names its own key
// (its source, pin, digest and keys, each compared with the file's name
// by recalledVerdict), so after a crash, cut short, with a tail of
// zeros or with blocks of another version, it is whole, missing, or one
// recalledVerdict does not use; the last two cost a check with the
// network, as a failed write does.
func (in *Installer) rememberVerdict(c *candidate, digest string) {
	st := c.trust
	root := in.cache.Root()
	if st == nil || root == "" || digest == "" || c.pin == "" || st.verifiedPin != c.pin {
		return
	}
	v := verdict{Source: st.verdictSource(), Pin: c.pin, Digest: digest, Keys: st.verifiedKeys, Signer: st.commitSigner}
	if len(st.commits) > 0 && (v.Keys == "" || v.Signer == "") {
		return
	}
	b, err := seal(v)
	if err != nil {
		return
	}
	dir := filepath.Join(root, pinsDir)
	if os.MkdirAll(dir, 0o755) == nil {
		atomicfile.WriteUnflushed(filepath.Join(dir, verdictKey(v.Source, v.Pin, v.Digest, v.Keys)), b, 0o644)
	}
}

// recalledVerdict returns the verdict the skill cache holds of content
// digest read from st's source at pin and verified with keys, if any.
func (in *Installer) recalledVerdict(st *sourceTrust, pin, digest, keys string) (verdict, bool) {
	root := in.cache.Root()
	if root == "" || pin == "" || digest == "" {
		return verdict{}, false
	}
	src := st.verdictSource()
	b, err := readfile.Small(filepath.Join(root, pinsDir, verdictKey(src, pin, digest, keys)), maxVerdict)
	if err != nil {
		return verdict{}, false
	}
	var v verdict
	if !unseal(b, &v) || v.Source != src || v.Pin != pin || v.Digest != digest || v.Keys != keys {
		return verdict{}, false
	}
	return v, true
}
