package trust

import (
	"io"
	"io/fs"
	"sync"

	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/internal/cache"
)

// shown is what a [Materializer]'s call is shown of the trees the skill
// cache stages for it (internal/cache's Show): an audit.Scanner per
// skill, by runtime name, fed the bytes as they are written, and the
// content digest each tree was published with. A tree the cache already
// held is shown nothing, and is audited from the cache (rule 4).
type shown struct {
	mu     sync.Mutex
	scans  map[string]*audit.Scanner
	staged map[string]string // by runtime name; "" for a name staged more than once
}

func newShown() *shown {
	return &shown{scans: make(map[string]*audit.Scanner), staged: make(map[string]string)}
}

// show is the Show a materialization shows s through.
func (s *shown) show() *cache.Show {
	return &cache.Show{
		Content: func(name, rel string, exec bool, size int64) io.WriteCloser {
			mode := fs.FileMode(0o444)
			if exec {
				mode = 0o555
			}
			return s.scanner(name).File(rel, mode, size)
		},
		Staged: func(name, digest string) {
			s.mu.Lock()
			defer s.mu.Unlock()
			if _, again := s.staged[name]; again {
				digest = ""
			}
			s.staged[name] = digest
		},
	}
}

func (s *shown) scanner(name string) *audit.Scanner {
	s.mu.Lock()
	defer s.mu.Unlock()
	sc, ok := s.scans[name]
	if !ok {
		sc = audit.NewScanner()
		s.scans[name] = sc
	}
	return sc
}

// report returns the audit of the tree of the skill name whose content
// digest is digest, made from the bytes the cache wrote, when the cache
// staged that tree once for this call and published it with that digest:
// every file of it was shown. Otherwise (the tree was in the cache, or
// the scanner kept too much) it reports false, and the tree is audited
// from the cache.
func (s *shown) report(name, digest string) (audit.Report, bool) {
	s.mu.Lock()
	got, staged := s.staged[name]
	sc := s.scans[name]
	s.mu.Unlock()
	if !staged || got == "" || got != digest || sc == nil {
		return audit.Report{}, false
	}
	rep, err := sc.Report(".")
	return rep, err == nil
}
