package install

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// sealed is the form of the documents the skill cache keeps unflushed
// under its .pins folder (verdicts, source memos): the document's JSON
// as body, and the SHA-256 of those bytes. A crash may leave such a file
// cut short, with a tail of zeros, or with some blocks of the version it
// replaced (a file system that orders no data before the rename may show
// those); none of these has the sum of its body, so none is used
// (unseal), whatever its size.
type sealed struct {
	SHA256 string          `json:"sha256"`
	Body   json.RawMessage `json:"body"`
}

// seal returns v as a sealed document.
func seal(v any) ([]byte, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(body)
	b := make([]byte, 0, len(body)+96)
	b = append(b, `{"sha256":"`...)
	b = hex.AppendEncode(b, sum[:])
	b = append(b, `","body":`...)
	b = append(b, body...)
	return append(b, '}'), nil
}

// unseal reads the sealed document b into v, and reports whether b is
// one whose body has its sum and parses into v.
func unseal(b []byte, v any) bool {
	var s sealed
	if json.Unmarshal(b, &s) != nil {
		return false
	}
	sum := sha256.Sum256(s.Body)
	if s.SHA256 != hex.EncodeToString(sum[:]) {
		return false
	}
	return json.Unmarshal(s.Body, v) == nil
}
