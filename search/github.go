package search

import (
	"context"
	"errors"
	"path"

	"github.com/agentadaptor/agentadaptor/source/github"
)

// Topic is the GitHub topic that marks a repository of skills (rule 2).
const Topic = "agent-skills"

// GitHub returns the [Backend] that searches GitHub through client, whose
// API address and token it uses (rule 2). Its name is "GitHub".
func GitHub(client *github.Client) Backend { return &gitHub{client: client} }

type gitHub struct{ client *github.Client }

func (g *gitHub) Name() string { return "GitHub" }

func (g *gitHub) Search(ctx context.Context, query string, limit int) ([]Result, error) {
	repos, rerr := g.client.SearchRepositories(ctx, query+" topic:"+Topic, limit)
	var out []Result
	for _, r := range repos {
		src := r.Owner + "/" + r.Name
		out = append(out, Result{Name: r.Name, Description: r.Description, Source: src, Install: installCommand(src), From: g.Name()})
	}
	if ctx.Err() != nil {
		return out, rerr
	}
	if g.client.TokenFrom() == "" {
		return out, rerr // GitHub searches code only with a token
	}
	files, cerr := g.client.SearchCode(ctx, query+" filename:SKILL.md", limit)
	for _, f := range files {
		if path.Base(f.Path) != "SKILL.md" {
			continue // GitHub matches file names ignoring case
		}
		src, name := f.Owner+"/"+f.Repo, f.Repo
		if dir := path.Dir(f.Path); dir != "." {
			src, name = src+"/"+dir, path.Base(dir)
		}
		out = append(out, Result{Name: name, Description: f.RepoDescription, Source: src, Install: installCommand(src), From: g.Name()})
	}
	return out, errors.Join(rerr, cerr)
}
