package webindex_test

import (
	"fmt"
	"log"

	"github.com/agentadaptor/agentadaptor/source/webindex"
)

func ExampleParse() {
	data := []byte(`{
  "$schema": "https://schemas.agentskills.io/discovery/0.2.0/schema.json",
  "skills": [
    {
      "name": "wrangler",
      "type": "archive",
      "description": "Deploy and manage Cloudflare Workers projects.",
      "url": "wrangler.tar.gz",
      "digest": "sha256:f1e2d3c4b5a6f7e8d9c0b1a2f3e4d5c6b7a8f9e0d1c2b3a4f5e6d7c8b9a0f1e2"
    },
    {"name": "../evil", "type": "skill-md", "description": "x", "url": "x", "digest": "sha256:00"}
  ]
}`)
	ix, err := webindex.Parse(data, "https://example.com/.well-known/agent-skills/index.json")
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range ix.Skills {
		fmt.Println(s.Name, s.Type, s.Resolved)
	}
	for _, s := range ix.Skipped {
		fmt.Println("skipped:", s.Reason)
	}
	// Output:
	// wrangler archive https://example.com/.well-known/agent-skills/wrangler.tar.gz
	// skipped: name "../evil" holds '.'; only a-z, 0-9 and '-' are allowed
}

func ExampleIndexURL() {
	for _, text := range []string{"https://example.com", "https://example.com/kit.tgz"} {
		u, ok, err := webindex.IndexURL(text)
		fmt.Printf("%q %v %v\n", u, ok, err)
	}
	// Output:
	// "https://example.com/.well-known/agent-skills/index.json" true <nil>
	// "" false <nil>
}
