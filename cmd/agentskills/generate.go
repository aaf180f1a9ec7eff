package main

// The command reference, docs/cli/*.md, is generated from the commands by
// TestCLIReference (clidocs_test.go), which fails when it is stale; the
// manual pages are generated on demand into a folder given with -man:
//
//	go generate ./cmd/agentskills
//	go test ./cmd/agentskills -run '^TestCLIReference$' -man=/usr/local/share/man/man1

//go:generate go test -run ^TestCLIReference$ -update-cli-docs .
