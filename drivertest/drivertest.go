// Package drivertest provides a recording [driver.Driver] for tests of code
// that runs agents: it records every request, returns a configured result
// or error, and can check that each resolved skill folder holds a
// SKILL.md.
//
//	rec := &drivertest.Driver{Result: &driver.Result{Text: "done"}, RequireSkillMD: true}
//	agent := adaptor.New(rec, adaptor.WithSkills(skill.Dir("./skills/review")))
//	if _, err := agent.Run(ctx, "review"); err != nil { ... }
//	req := rec.Last()
package drivertest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/agentadaptor/agentadaptor/driver"
)

// Driver records the requests it is given. The zero value is ready to use
// and answers every run with the text "ok". Set the exported fields before
// the first run; a Driver is safe for concurrent use.
type Driver struct {
	// Result is what every run returns; nil means a result with Text "ok".
	Result *driver.Result
	// Err, when set, is what every run returns instead of a result.
	Err error
	// RequireSkillMD makes a run fail, after recording its request, when a
	// resolved skill folder is not absolute or holds no regular SKILL.md.
	RequireSkillMD bool
	// Events are sent, in order, to the request's Events function (when
	// it has one) before the run returns.
	Events []driver.Event
	// Handler, when set, answers every run in place of Result and Err,
	// after the request is recorded, the events are sent and the skills
	// checked. Use it to script sessions, resumes or failures.
	Handler func(ctx context.Context, req *driver.Request) (*driver.Result, error)

	mu       sync.Mutex
	requests []driver.Request
}

var _ driver.Driver = (*Driver)(nil)

// Run records req and returns the configured result or error.
func (d *Driver) Run(ctx context.Context, req *driver.Request) (*driver.Result, error) {
	if req == nil {
		return nil, errors.New("drivertest: nil request")
	}
	d.mu.Lock()
	d.requests = append(d.requests, clone(*req))
	d.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if d.RequireSkillMD {
		if err := CheckSkills(req.Skills); err != nil {
			return nil, err
		}
	}
	if req.Events != nil {
		for _, ev := range d.Events {
			req.Events(ev)
		}
	}
	if d.Handler != nil {
		return d.Handler(ctx, req)
	}
	if d.Err != nil {
		return nil, d.Err
	}
	if d.Result != nil {
		res := *d.Result
		return &res, nil
	}
	return &driver.Result{Text: "ok"}, nil
}

// Requests returns a copy of every request recorded, in the order the runs
// began.
func (d *Driver) Requests() []driver.Request {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]driver.Request, len(d.requests))
	for i, r := range d.requests {
		out[i] = clone(r)
	}
	return out
}

// Last returns the most recent request; it panics when there is none.
func (d *Driver) Last() driver.Request {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.requests) == 0 {
		panic("drivertest: no request recorded")
	}
	return clone(d.requests[len(d.requests)-1])
}

// Calls returns the number of runs recorded.
func (d *Driver) Calls() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.requests)
}

// CheckSkills reports an error unless every entry's folder is absolute and
// holds a regular SKILL.md, and the entries are sorted by key without
// duplicates.
func CheckSkills(rs driver.ResolvedSkills) error {
	for i, e := range rs.Entries {
		if i > 0 && rs.Entries[i-1].Key >= e.Key {
			return fmt.Errorf("drivertest: entries not sorted by key: %q before %q", rs.Entries[i-1].Key, e.Key)
		}
		if !filepath.IsAbs(e.Path) {
			return fmt.Errorf("drivertest: skill %q: folder %q is not absolute", e.Key, e.Path)
		}
		fi, err := os.Stat(filepath.Join(e.Path, "SKILL.md"))
		if err != nil {
			return fmt.Errorf("drivertest: skill %q: %w", e.Key, err)
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("drivertest: skill %q: %s/SKILL.md is not a regular file", e.Key, e.Path)
		}
	}
	return nil
}

// clone copies a request deeply enough that later changes by the caller
// do not show in the record.
func clone(r driver.Request) driver.Request {
	r.Skills.Entries = slices.Clone(r.Skills.Entries)
	for i := range r.Skills.Entries {
		r.Skills.Entries[i].Metadata = maps.Clone(r.Skills.Entries[i].Metadata)
	}
	return r
}
