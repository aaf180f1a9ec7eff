// Command auditrates runs the audit over every skill under some folders
// (each folder holding a SKILL.md, as checkouts of published skill
// repositories hold them) and prints what it found: how many skills, how
// many have a finding at each severity (their highest), per rule the
// findings and the skills they are in, and every skill whose highest
// finding reaches -show (default high), with its rule, file, line and
// excerpt. auditrepos does the same over published repositories at
// pinned commits, and the package audit's "Measured" section holds its
// figures.
//
//	go -C bench run ./auditrates [-show high] DIR...
package main

import (
	"flag"
	"fmt"
	"os"
	"slices"

	"github.com/agentadaptor/agentadaptor/bench/internal/skilldirs"

	"github.com/agentadaptor/agentadaptor/audit"
)

func main() {
	show := flag.String("show", "high", "print the skills whose highest finding reaches this severity")
	flag.Parse()
	threshold, err := audit.ParseSeverity(*show)
	if err != nil || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: go -C bench run ./auditrates [-show SEVERITY] DIR...")
		os.Exit(2)
	}
	var skills []string
	for _, root := range flag.Args() {
		found, err := skilldirs.Under(root)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		skills = append(skills, found...)
	}
	slices.Sort(skills)
	skills = slices.Compact(skills)

	bySeverity := map[audit.Severity]int{}
	clean, failed := 0, 0
	findings := map[string]int{}
	skillsWith := map[string]int{}
	var shown []string
	for _, dir := range skills {
		rep, err := audit.Tree(os.DirFS(dir))
		fs := rep.Findings
		if err != nil {
			failed++
			fmt.Fprintf(os.Stderr, "%s: %v\n", dir, err)
			continue
		}
		top, ok := audit.Max(fs)
		if !ok {
			clean++
			continue
		}
		bySeverity[top]++
		seen := map[string]bool{}
		for rule, n := range rep.Omitted {
			findings[rule] += n
		}
		for _, f := range fs {
			findings[f.Rule]++
			if !seen[f.Rule] {
				seen[f.Rule] = true
				skillsWith[f.Rule]++
			}
		}
		if top >= threshold {
			for _, f := range fs {
				if f.Severity >= threshold {
					shown = append(shown, fmt.Sprintf("%s\t%s\t%s\t%s:%d\t%s", dir, f.Severity, f.Rule, f.File, f.Line, f.Excerpt))
				}
			}
		}
	}
	fmt.Printf("skills: %d (%d could not be audited)\n", len(skills), failed)
	fmt.Printf("no finding: %d\n", clean)
	for s := audit.Critical; s >= audit.Info; s-- {
		fmt.Printf("highest %-8s %d\n", s.String()+":", bySeverity[s])
	}
	fmt.Println("\nrule\tseverity\tfindings\tskills")
	for _, r := range audit.Rules() {
		fmt.Printf("%s\t%s\t%d\t%d\n", r.ID, r.Severity, findings[r.ID], skillsWith[r.ID])
	}
	if len(shown) > 0 {
		fmt.Printf("\nfindings at %s or above:\n", threshold)
		for _, s := range shown {
			fmt.Println(s)
		}
	}
}
