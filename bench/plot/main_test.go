package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

// curvePaths parses svg as XML and returns, by stroke colour, how many
// paths of width 1.5 (the contenders' lines and their legend swatches)
// hold points points.
func curvePaths(t *testing.T, svg []byte, points int) map[string]int {
	t.Helper()
	got := map[string]int{}
	d := xml.NewDecoder(bytes.NewReader(svg))
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return got
		}
		if err != nil {
			t.Fatalf("the SVG is not well-formed XML: %v", err)
		}
		el, ok := tok.(xml.StartElement)
		if !ok || el.Name.Local != "path" {
			continue
		}
		var path, style string
		for _, a := range el.Attr {
			switch a.Name.Local {
			case "d":
				path = a.Value
			case "style":
				style = a.Value
			}
		}
		if !strings.Contains(style, "stroke-width:1.5") {
			continue
		}
		if strings.Count(path, "M")+strings.Count(path, "L") != points {
			continue
		}
		for _, s := range strings.Split(style, ";") {
			if c, ok := strings.CutPrefix(s, "stroke:"); ok {
				got[c]++
			}
		}
	}
}

// TestDraw checks rules 3 and 4: the SVG parses as XML, titles each
// program, and holds one line through every size per contender, each in
// its own colour.
func TestDraw(t *testing.T) {
	out := filepath.Join(t.TempDir(), "curves.svg")
	if err := run([]string{"-o", out, "testdata/installcmp.csv", "testdata/repocmp.csv"}, io.Discard); err != nil {
		t.Fatal(err)
	}
	svg, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := curvePaths(t, svg, 3) // installcmp: 20, 200 and 2000 skills
	if len(lines) != 3 {
		t.Errorf("installcmp: lines through 3 sizes by colour = %v, want 3 colours, one line each", lines)
	}
	for c, n := range lines {
		if n != 1 {
			t.Errorf("installcmp: %d lines of colour %s, want 1", n, c)
		}
	}
	for _, title := range []string{">installcmp<", ">repocmp<", ">agentskills add<", ">npm skills add FOLDER<"} {
		if !bytes.Contains(svg, []byte(title)) {
			t.Errorf("the SVG holds no text %s", title)
		}
	}
}

// TestMedian checks rule 4: a point is the median of its rounds.
func TestMedian(t *testing.T) {
	var res results
	if err := res.readFile("testdata/installcmp.csv"); err != nil {
		t.Fatal(err)
	}
	pts := res.programs[0].contenders[0].points()
	if len(pts) != 3 || pts[0].X != 20 || pts[0].Y != 0.025 || pts[2].X != 2000 {
		t.Errorf("points of agentskills add = %v, want (20, 0.025) first and 2000 last", pts)
	}
	if pts := res.programs[0].contenders[1].points(); pts[0].Y != 0.9 {
		t.Errorf("median of 0.9 and 0.8 = %v, want the upper one, 0.9", pts[0].Y)
	}
}

// TestScale checks rule 5: log-log beyond a decade of sizes, linear
// within one.
func TestScale(t *testing.T) {
	for _, tc := range []struct {
		file string
		log  bool
	}{
		{"testdata/installcmp.csv", true},
		{"testdata/repocmp.csv", false},
	} {
		var res results
		if err := res.readFile(tc.file); err != nil {
			t.Fatal(err)
		}
		p, err := res.programs[0].plot()
		if err != nil {
			t.Fatal(err)
		}
		_, xlog := p.X.Scale.(plot.LogScale)
		_, ylog := p.Y.Scale.(plot.LogScale)
		if xlog != tc.log || ylog != tc.log {
			t.Errorf("%s: log x %v, log y %v, want %v", tc.file, xlog, ylog, tc.log)
		}
	}
}

// TestMalformed checks rules 1, 2 and 6: a bad file is refused naming
// the file and the line, and -o is left as it was.
func TestMalformed(t *testing.T) {
	const head = "program,contender,skills,round,seconds\n"
	for _, tc := range []struct {
		name, csv, want string
	}{
		{"empty", "", "in.csv: empty"},
		{"no seconds column", "program,contender,skills,round\nx,y,1,0\n", `in.csv:1: the header`},
		{"short row", head + "p,c,20,0,0.1\np,c,20\n", "in.csv: record on line 3: wrong number of fields"},
		{"bare quote", head + "p,c\"x,20,0,0.1\n", "in.csv: parse error on line 2"},
		{"skills not a number", head + "p,c,20,0,0.1\np,c,lots,0,0.1\n", `in.csv:3: skills "lots"`},
		{"zero skills", head + "p,c,0,0,0.1\n", `in.csv:2: skills "0"`},
		{"negative round", head + "p,c,20,-1,0.1\n", `in.csv:2: round "-1"`},
		{"zero seconds", head + "p,c,20,0,0\n", `in.csv:2: seconds "0"`},
		{"NaN seconds", head + "p,c,20,0,NaN\n", `in.csv:2: seconds "NaN"`},
		{"infinite seconds", head + "p,c,20,0,+Inf\n", `in.csv:2: seconds "+Inf"`},
		{"no program", head + ",c,20,0,0.1\n", "in.csv:2: the program or the contender is empty"},
		{"header only", head, "hold no rows"},
		{"too many rows", head + strings.Repeat("p,c,20,0,0.1\n", maxRows+1), "in.csv:1000002: more than 1000000 rows"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			in, out := filepath.Join(dir, "in.csv"), filepath.Join(dir, "curves.svg")
			if err := os.WriteFile(in, []byte(tc.csv), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(out, []byte("mine"), 0o644); err != nil {
				t.Fatal(err)
			}
			err := run([]string{"-o", out, in}, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want one containing %q", err, tc.want)
			}
			if b, _ := os.ReadFile(out); string(b) != "mine" {
				t.Errorf("-o was overwritten: %q", b)
			}
		})
	}
}

// TestArgs checks that a missing file and no file at all are refused.
func TestArgs(t *testing.T) {
	for _, args := range [][]string{
		{"-o", filepath.Join(t.TempDir(), "c.svg")},
		{"-o", filepath.Join(t.TempDir(), "c.svg"), "testdata/missing.csv"},
		{"-o", filepath.Join(t.TempDir(), "missing", "c.svg"), "testdata/installcmp.csv"},
	} {
		if err := run(args, io.Discard); err == nil {
			t.Errorf("run(%q): no error", args)
		}
	}
}
