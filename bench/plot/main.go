// Command plot draws the scaling curves of the programs under bench/ as
// one SVG: for each program, the median time over rounds against the
// number of skills, one line per contender (ours, the floor, the npm
// tool), from the CSV files those programs write with -csv.
//
//	go -C bench run ./plot -o curves.svg FILE.csv...
//
// The rules:
//
//  1. A CSV file starts with a header naming at least the columns
//     program, contender, skills, round and seconds, in any order; other
//     columns are ignored. Every row holds a program and a contender, a
//     positive whole number of skills, a round of 0 or more and a
//     positive, finite number of seconds.
//  2. A file that breaks rule 1, or holds more than 1,000,000 rows, is
//     refused with an error naming the file and the line; nothing is
//     written.
//  3. Each program gets a plot of its own, titled with the program's
//     name, in the order the programs first appear; rows of one program
//     may come from several files.
//  4. Each contender of a program is one line through the medians (the
//     upper one of an even count) of its rounds at each size, sizes in
//     increasing order, in the order the contenders first appear.
//  5. Both axes are logarithmic when a program's sizes span more than a
//     decade (the largest over ten times the smallest); linear
//     otherwise.
//  6. The SVG is written to a temporary file beside -o and renamed over
//     it, so a failed run leaves no half-written picture.
//
// The program is plain Go and draws with gonum.org/v1/plot; it runs the
// same on Linux, macOS and Windows.
package main

import (
	"bytes"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/agentadaptor/agentadaptor/internal/atomicfile"
)

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "plot:", err)
		os.Exit(1)
	}
}

// maxRows is how many rows, in all files, the program reads (rule 2).
const maxRows = 1_000_000

// columns are the columns every CSV file must name (rule 1).
var columns = []string{"program", "contender", "skills", "round", "seconds"}

func run(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("plot", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "curves.svg", "the SVG file to write")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return errors.New("no CSV file given; run: go -C bench run ./plot -o curves.svg FILE.csv...")
	}
	var res results
	for _, path := range fs.Args() {
		if err := res.readFile(path); err != nil {
			return err
		}
	}
	var svg bytes.Buffer
	if err := res.draw(&svg); err != nil {
		return err
	}
	if err := atomicfile.Write(*out, svg.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write the picture (check -o): %w", err)
	}
	return nil
}

// results are the rounds' times read from the CSV files: programs in the
// order they first appear.
type results struct {
	programs []*program
	rows     int
}

// program is one program's times: contenders in the order they first
// appear.
type program struct {
	name       string
	contenders []*contender
}

// contender is one contender's times: seconds of every round by number
// of skills.
type contender struct {
	name    string
	seconds map[int][]float64
}

// readFile adds the rows of the CSV file at path (rules 1 and 2).
func (res *results) readFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open the results: %w", err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.ReuseRecord = true
	header, err := r.Read()
	if err == io.EOF {
		return fmt.Errorf("%s: empty; want a header naming %v and a row per round (written by a bench program's -csv)", path, columns)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	col := make([]int, len(columns))
	for i, name := range columns {
		col[i] = slices.Index(header, name)
		if col[i] < 0 {
			return fmt.Errorf("%s:1: the header %q names no column %q; want a file written by a bench program's -csv", path, header, name)
		}
	}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err) // a csv.ParseError names the line
		}
		line, _ := r.FieldPos(0)
		if res.rows++; res.rows > maxRows {
			return fmt.Errorf("%s:%d: more than %d rows in all; plot fewer or smaller files", path, line, maxRows)
		}
		if err := res.add(rec[col[0]], rec[col[1]], rec[col[2]], rec[col[3]], rec[col[4]]); err != nil {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
	}
}

// add checks and adds one row (rule 1).
func (res *results) add(prog, cont, skills, round, seconds string) error {
	if prog == "" || cont == "" {
		return errors.New("the program or the contender is empty; each row names both")
	}
	n, err := strconv.Atoi(skills)
	if err != nil || n <= 0 {
		return fmt.Errorf("skills %q is not a positive whole number", skills)
	}
	if r, err := strconv.Atoi(round); err != nil || r < 0 {
		return fmt.Errorf("round %q is not a whole number of 0 or more", round)
	}
	s, err := strconv.ParseFloat(seconds, 64)
	if err != nil || s <= 0 || math.IsInf(s, 0) || math.IsNaN(s) {
		return fmt.Errorf("seconds %q is not a positive, finite number", seconds)
	}
	i := slices.IndexFunc(res.programs, func(p *program) bool { return p.name == prog })
	if i < 0 {
		i = len(res.programs)
		res.programs = append(res.programs, &program{name: prog})
	}
	p := res.programs[i]
	j := slices.IndexFunc(p.contenders, func(c *contender) bool { return c.name == cont })
	if j < 0 {
		j = len(p.contenders)
		p.contenders = append(p.contenders, &contender{name: cont, seconds: map[int][]float64{}})
	}
	c := p.contenders[j]
	c.seconds[n] = append(c.seconds[n], s)
	return nil
}

// points returns c's medians by size, sizes in increasing order (rule
// 4).
func (c *contender) points() plotter.XYs {
	sizes := make([]int, 0, len(c.seconds))
	for n := range c.seconds {
		sizes = append(sizes, n)
	}
	slices.Sort(sizes)
	xys := make(plotter.XYs, len(sizes))
	for i, n := range sizes {
		s := slices.Clone(c.seconds[n])
		slices.Sort(s)
		xys[i] = plotter.XY{X: float64(n), Y: s[len(s)/2]}
	}
	return xys
}

// draw writes the SVG of every program's plot, one above the other, to
// w (rules 3-5).
func (res *results) draw(w io.Writer) error {
	if len(res.programs) == 0 {
		return errors.New("the CSV files hold no rows; run a bench program with -csv first")
	}
	plots := make([][]*plot.Plot, len(res.programs))
	for i, prog := range res.programs {
		p, err := prog.plot()
		if err != nil {
			return err
		}
		plots[i] = []*plot.Plot{p}
	}
	const width, height = 16 * vg.Centimeter, 11 * vg.Centimeter
	canvas := vgsvg.New(width, height*vg.Length(len(plots)))
	dc := draw.New(canvas)
	tiles := draw.Tiles{Rows: len(plots), Cols: 1, PadX: vg.Centimeter, PadY: vg.Centimeter,
		PadTop: vg.Centimeter / 2, PadBottom: vg.Centimeter / 2, PadLeft: vg.Centimeter / 2, PadRight: vg.Centimeter / 2}
	canvases := plot.Align(plots, tiles, dc)
	for i := range plots {
		plots[i][0].Draw(canvases[i][0])
	}
	if _, err := canvas.WriteTo(w); err != nil {
		return fmt.Errorf("draw the SVG: %w", err)
	}
	return nil
}

// plot makes the plot of prog.
func (prog *program) plot() (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = prog.name
	p.X.Label.Text = "skills"
	p.Y.Label.Text = "seconds (median over rounds)"
	p.Legend.Top = true
	p.Legend.Left = true
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, c := range prog.contenders {
		xys := c.points()
		lo, hi = min(lo, xys[0].X), max(hi, xys[len(xys)-1].X)
		line, dots, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, fmt.Errorf("plot %s, %s: %w", prog.name, c.name, err)
		}
		line.Color = plotutil.Color(i)
		line.Width = vg.Points(1.5)
		dots.Color = plotutil.Color(i)
		dots.Shape = plotutil.Shape(i)
		p.Add(line, dots)
		p.Legend.Add(c.name, line, dots)
	}
	if hi > 10*lo {
		p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
		p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	}
	p.Add(plotter.NewGrid())
	return p, nil
}
