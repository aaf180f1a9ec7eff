package agentjson

import (
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
)

func TestObject(t *testing.T) {
	var got []driver.Event
	send := Emit(func(ev driver.Event) { got = append(got, ev) })

	fields, raw, ok := object([]byte("  {\"type\":\"x\",\"n\":1}\n"), send)
	if !ok || Text(fields["type"]) != "x" || string(raw) != `{"type":"x","n":1}` || len(got) != 0 {
		t.Errorf("object of an object = %v, %s, %v; events %v", fields, raw, ok, got)
	}
	if _, _, ok := object([]byte(" \n"), send); ok || len(got) != 0 {
		t.Errorf("object of a blank line = %v; events %v", ok, got)
	}
	if _, _, ok := object([]byte("not json"), send); ok || len(got) != 1 {
		t.Fatalf("object of a line that is not JSON = %v; events %v", ok, got)
	}
	if ev, _ := got[0].(*driver.ErrorEvent); ev == nil || !strings.Contains(ev.Message, "not a JSON object") || string(ev.Raw) != "not json" {
		t.Errorf("event of a line that is not JSON = %#v", got[0])
	}
	if _, _, ok := object([]byte("[1]"), nil); ok {
		t.Error("object of an array with no receiver succeeded")
	}
}

func TestText(t *testing.T) {
	if s, ok := String([]byte(`"a"`)); !ok || s != "a" {
		t.Errorf("String = %q, %v", s, ok)
	}
	if s, ok := String([]byte(`1`)); ok || s != "" {
		t.Errorf("String of a number = %q, %v", s, ok)
	}
	if Text([]byte(`{}`)) != "" || Text([]byte(`"b"`)) != "b" {
		t.Error("Text reads other than strings")
	}
	if e := Excerpt([]byte(strings.Repeat("x", 200))); !strings.HasSuffix(e, `"...`) || len(e) != 125 {
		t.Errorf("Excerpt of a long line = %s", e)
	}
	if e := Excerpt([]byte("ab")); e != `"ab"` {
		t.Errorf("Excerpt = %s", e)
	}
}

func TestDecode(t *testing.T) {
	tests := []struct {
		name   string
		raw    string
		want   *float64
		errors int
	}{
		{"absent", "", nil, 0},
		{"number", "1.5", ptr(1.5), 0},
		{"null", "null", ptr(0.0), 0},
		{"wrong type", `"x"`, nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []driver.Event
			v := Decode[float64]([]byte(tt.raw), "the cost", func(ev driver.Event) { got = append(got, ev) })
			if (v == nil) != (tt.want == nil) || (v != nil && *v != *tt.want) || len(got) != tt.errors {
				t.Fatalf("Decode(%q) = %v; events %v, want %v and %d events", tt.raw, v, got, tt.want, tt.errors)
			}
			if tt.errors > 0 {
				if ev, _ := got[0].(*driver.ErrorEvent); ev == nil || !strings.HasPrefix(ev.Message, "cannot decode the cost (") || !strings.HasSuffix(ev.Message, `: "\"x\""`) {
					t.Errorf("Decode(%q) sent %#v", tt.raw, got[0])
				}
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestParse(t *testing.T) {
	tests := []struct {
		name, line string
		knows      bool
		wantLine   string // the type event sees, "-" when it is not called
		want       string // the event sent: "", "raw TYPE" or "error"
	}{
		{"known", `{"type":"a","n":1}`, true, "a", ""},
		{"unknown", ` {"type":"b"}` + "\n", false, "b", "raw b"},
		{"no type", `{"n":1}`, false, "", "raw "},
		{"type not a string", `{"type":1}`, false, "", "raw "},
		{"blank", " \n", true, "-", ""},
		{"not JSON", "not json", true, "-", "error"},
		{"not an object", "[1]", true, "-", "error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			send := Emit(func(ev driver.Event) {
				switch ev := ev.(type) {
				case *driver.RawEvent:
					got = append(got, "raw "+ev.Type)
					if string(ev.Raw) != strings.TrimSpace(tt.line) {
						t.Errorf("RawEvent.Raw = %s, want the trimmed line", ev.Raw)
					}
				case *driver.ErrorEvent:
					got = append(got, "error")
				default:
					got = append(got, ev.Kind())
				}
			})
			seen := "-"
			Parse([]byte(tt.line), send, func(l Line) bool {
				seen = l.Type
				if string(l.Raw) != strings.TrimSpace(tt.line) || l.Fields == nil {
					t.Errorf("Line = %+v, want the trimmed line %q and its fields", l, tt.line)
				}
				return tt.knows
			})
			want := []string{}
			if tt.want != "" {
				want = []string{tt.want}
			}
			if seen != tt.wantLine || strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("Parse(%q) gave event the type %q and sent %q; want %q and %q", tt.line, seen, got, tt.wantLine, want)
			}
		})
	}
}
