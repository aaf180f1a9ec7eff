//go:build linux

package benchrun

import (
	"encoding/csv"
	"fmt"
	"os"
	"strconv"
	"time"
)

// CSVHeader is the first row of every results file the programs under
// bench/ write: the program, the contender, the number of skills (the
// size of the run), the round (from 0) and the round's time in seconds.
// bench/plot reads files of this shape; a program may add columns after
// these.
var CSVHeader = []string{"program", "contender", "skills", "round", "seconds"}

// Results writes one row per contender and round to a CSV file. A nil
// *Results writes nothing, so a program calls it whether or not -csv was
// given.
type Results struct {
	prog string
	f    *os.File
	w    *csv.Writer
}

// CreateResults creates (or truncates) the CSV file at path for the
// program prog and writes its header.
func CreateResults(prog, path string) (*Results, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("create the results file (check -csv): %w", err)
	}
	r := &Results{prog: prog, f: f, w: csv.NewWriter(f)}
	if err := r.w.Write(CSVHeader); err != nil {
		f.Close()
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return r, nil
}

// Add writes the times of each contender, as Rounds returns them, for a
// run of skills skills, and flushes them, so the rows of the sizes done
// so far survive a later failure.
func (r *Results) Add(skills int, contenders []Contender, times [][]time.Duration) error {
	if r == nil {
		return nil
	}
	for i, c := range contenders {
		for round, d := range times[i] {
			row := []string{r.prog, c.Name, strconv.Itoa(skills), strconv.Itoa(round), strconv.FormatFloat(d.Seconds(), 'f', 6, 64)}
			if err := r.w.Write(row); err != nil {
				return fmt.Errorf("write %s: %w", r.f.Name(), err)
			}
		}
	}
	r.w.Flush()
	if err := r.w.Error(); err != nil {
		return fmt.Errorf("write %s: %w", r.f.Name(), err)
	}
	return nil
}

// Close flushes and closes the file. A nil *Results does nothing.
func (r *Results) Close() error {
	if r == nil {
		return nil
	}
	r.w.Flush()
	if err := r.w.Error(); err != nil {
		r.f.Close()
		return fmt.Errorf("write %s: %w", r.f.Name(), err)
	}
	return r.f.Close()
}
