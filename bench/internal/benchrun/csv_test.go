//go:build linux

package benchrun

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestParseSizes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int
	}{
		{"200", []int{200}},
		{"200,2000, 10000", []int{200, 2000, 10000}},
		{"", nil},
		{"200,", nil},
		{"0", nil},
		{"-5", nil},
		{"2e3", nil},
	} {
		got, err := ParseSizes(tc.in)
		if tc.want == nil {
			if err == nil {
				t.Errorf("ParseSizes(%q) = %v, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("ParseSizes(%q) = %v, %v, want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestResults(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.csv")
	var none *Results
	if err := none.Add(1, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := none.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := CreateResults("installcmp", path)
	if err != nil {
		t.Fatal(err)
	}
	cs := []Contender{{Name: "ours"}, {Name: "floor, cp"}}
	if err := r.Add(20, cs, [][]time.Duration{{time.Second, 2 * time.Second}, {time.Millisecond, time.Millisecond}}); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		CSVHeader,
		{"installcmp", "ours", "20", "0", "1.000000"},
		{"installcmp", "ours", "20", "1", "2.000000"},
		{"installcmp", "floor, cp", "20", "0", "0.001000"},
		{"installcmp", "floor, cp", "20", "1", "0.001000"},
	}
	if !slices.EqualFunc(rows, want, slices.Equal) {
		t.Errorf("rows = %q, want %q", rows, want)
	}
}

func TestCreateResultsBadPath(t *testing.T) {
	if _, err := CreateResults("p", filepath.Join(t.TempDir(), "missing", "r.csv")); err == nil {
		t.Error("CreateResults into a missing folder: no error")
	}
}
