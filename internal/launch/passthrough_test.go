package launch

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
)

// TestCheckPassThrough checks rule 8 of "Arguments".
func TestCheckPassThrough(t *testing.T) {
	owned := Owned{"--output-format": "", "--model": "Model", "--skip-trust": ""}
	for _, tt := range []struct {
		name   string
		args   []string
		option string // "" with refused: refused for its form
		field  string
		reason string // in the error
		ok     bool
	}{
		{name: "none", ok: true},
		{name: "flag", args: []string{"--verbose-extra"}, ok: true},
		{name: "value", args: []string{"--append-system-prompt=--output-format=text"}, ok: true},
		{name: "empty value", args: []string{"--name="}, ok: true},
		{name: "short", args: []string{"-p"}, reason: "long option"},
		{name: "short with value", args: []string{"-ofoo"}, reason: "long option"},
		{name: "separator", args: []string{"--"}, reason: "ends the options"},
		{name: "operand", args: []string{"--x", "value"}, reason: "long option"},
		{name: "empty", args: []string{""}, reason: "long option"},
		{name: "upper case", args: []string{"--outputFormat=text"}, reason: "lowercase"},
		{name: "underscore", args: []string{"--output_format=text"}, reason: "lowercase"},
		{name: "triple dash", args: []string{"---x"}, reason: "lowercase"},
		{name: "NUL", args: []string{"--x=a\x00b"}, reason: "NUL"},
		{name: "driver's own", args: []string{"--output-format=text"}, option: "--output-format", reason: "set by the driver itself"},
		{name: "driver's own flag", args: []string{"--skip-trust"}, option: "--skip-trust", reason: "set by the driver itself"},
		{name: "negation", args: []string{"--no-skip-trust"}, option: "--skip-trust", reason: "set by the driver itself"},
		{name: "field", args: []string{"--model=x"}, option: "--model", field: "Model", reason: "Config.Model"},
		{name: "second refused", args: []string{"--ok", "--model"}, option: "--model", field: "Model", reason: "Config.Model"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckPassThrough("agent", tt.args, owned)
			if tt.ok {
				if err != nil {
					t.Fatalf("CheckPassThrough(%q) = %v, want nil", tt.args, err)
				}
				return
			}
			var argErr *driver.ArgError
			if !errors.Is(err, driver.ErrArgRefused) || !errors.As(err, &argErr) {
				t.Fatalf("CheckPassThrough(%q) = %v, want a *driver.ArgError", tt.args, err)
			}
			if argErr.Agent != "agent" || argErr.Option != tt.option || argErr.Field != tt.field || !strings.Contains(err.Error(), tt.reason) {
				t.Errorf("CheckPassThrough(%q) = %+v (%v), want option %q, field %q, saying %q", tt.args, argErr, err, tt.option, tt.field, tt.reason)
			}
		})
	}
}
