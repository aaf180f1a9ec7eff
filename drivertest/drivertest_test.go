package drivertest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
)

func TestRecordsAndAnswers(t *testing.T) {
	d := &Driver{}
	req := &driver.Request{Prompt: "p", Skills: driver.ResolvedSkills{Entries: []driver.ResolvedSkill{{Key: "a", Metadata: map[string]string{"k": "v"}}}}}
	res, err := d.Run(t.Context(), req)
	if err != nil || res.Text != "ok" {
		t.Fatalf("Run = %v, %v, want ok", res, err)
	}
	req.Skills.Entries[0].Metadata["k"] = "changed"
	if got := d.Last().Skills.Entries[0].Metadata["k"]; got != "v" {
		t.Errorf("the record changed with the caller's request: %q", got)
	}
	d.Result = &driver.Result{Text: "done"}
	if res, _ := d.Run(t.Context(), &driver.Request{Prompt: "q"}); res.Text != "done" {
		t.Errorf("Run = %q, want the configured result", res.Text)
	}
	boom := errors.New("boom")
	d.Err = boom
	if _, err := d.Run(t.Context(), &driver.Request{Prompt: "r"}); err != boom {
		t.Errorf("Run = %v, want the configured error", err)
	}
	if d.Calls() != 3 || d.Requests()[2].Prompt != "r" {
		t.Errorf("recorded %d calls: %+v", d.Calls(), d.Requests())
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := (&Driver{}).Run(ctx, &driver.Request{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Run with a cancelled context = %v", err)
	}
}

func TestCheckSkills(t *testing.T) {
	good := t.TempDir()
	os.WriteFile(filepath.Join(good, "SKILL.md"), []byte("x"), 0o644)
	folder := t.TempDir()
	os.Mkdir(filepath.Join(folder, "SKILL.md"), 0o755)
	tests := []struct {
		name    string
		entries []driver.ResolvedSkill
		want    string
	}{
		{"ok", []driver.ResolvedSkill{{Key: "a", Path: good}, {Key: "b", Path: good}}, ""},
		{"missing", []driver.ResolvedSkill{{Key: "a", Path: t.TempDir()}}, "no such file"},
		{"not regular", []driver.ResolvedSkill{{Key: "a", Path: folder}}, "not a regular file"},
		{"relative", []driver.ResolvedSkill{{Key: "a", Path: "rel"}}, "not absolute"},
		{"unsorted", []driver.ResolvedSkill{{Key: "b", Path: good}, {Key: "a", Path: good}}, "sorted"},
		{"duplicate", []driver.ResolvedSkill{{Key: "a", Path: good}, {Key: "a", Path: good}}, "sorted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckSkills(driver.ResolvedSkills{Entries: tt.entries})
			if (tt.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("CheckSkills(%s) = %v, want %q", tt.name, err, tt.want)
			}
			d := &Driver{RequireSkillMD: true}
			_, err = d.Run(t.Context(), &driver.Request{Skills: driver.ResolvedSkills{Entries: tt.entries}})
			if (tt.want == "") != (err == nil) || d.Calls() != 1 {
				t.Errorf("Run with RequireSkillMD (%s) = %v after %d calls", tt.name, err, d.Calls())
			}
		})
	}
}

func TestLastWithoutRequestsPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Errorf("Last on an empty recorder did not panic")
		}
	}()
	(&Driver{}).Last()
}
