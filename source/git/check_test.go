package git

import "testing"

func TestSourceCheck(t *testing.T) {
	if err := (Source{URL: "https://git.example.com/skills.git", Ref: "main", Path: "skills"}).check(); err != nil {
		t.Errorf("check of a good source = %v", err)
	}
	for _, s := range []Source{
		{URL: "git+https://git.example.com/skills.git"},
		{URL: "https://git.example.com/skills.git#main"},
		{URL: "https://git.example.com/%zz"},
		{URL: "ftp://git.example.com/skills.git"},
		{URL: "https://git.example.com/skills.git", Ref: "+main"},
		{URL: "https://git.example.com/skills.git", Path: "../up"},
	} {
		if err := s.check(); err == nil {
			t.Errorf("check of %+v succeeded", s)
		}
	}
}
