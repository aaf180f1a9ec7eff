package launch

import (
	"fmt"
	"strings"

	"github.com/agentadaptor/agentadaptor/driver"
)

// Owned are the long options a driver puts on its agent's command line
// itself, by name ("--output-format"), each with the Config field that
// sets it ("Model"), or "" when the driver sets it on its own (the
// output format, the session id, the mount).
type Owned map[string]string

// CheckPassThrough checks arguments that a driver is to pass through to
// its agent on someone else's behalf (a command line's user), by rule 8
// of "Arguments": each must be one argument "--name" or "--name=value",
// name in lowercase letters, digits and dashes (so no short option, no
// "--", no value in an argument of its own), the value without a NUL
// byte, and name (with a "no-" in front taken off, which yargs reads as
// the option's negation) not one the driver sets, as owned says. The
// first argument refused is a *driver.ArgError naming agent.
func CheckPassThrough(agent string, args []string, owned Owned) error {
	for _, arg := range args {
		if err := checkPassThrough(arg, owned); err != nil {
			err.Agent = agent
			return err
		}
	}
	return nil
}

func checkPassThrough(arg string, owned Owned) *driver.ArgError {
	name, value, hasValue := strings.Cut(arg, "=")
	switch {
	case arg == "--":
		return &driver.ArgError{Arg: arg, Reason: `"--" ends the options: an argument to pass through must be one option, --name or --name=value`}
	case !strings.HasPrefix(arg, "--"):
		return &driver.ArgError{Arg: arg, Reason: "an argument to pass through must be one long option, --name or --name=value, with its value after the = (no short option, no value in an argument of its own)"}
	case !longOption.MatchString(name):
		return &driver.ArgError{Arg: arg, Reason: fmt.Sprintf("%q is not an option name of lowercase letters, digits and dashes", name)}
	case hasValue && strings.IndexByte(value, 0) >= 0:
		return &driver.ArgError{Arg: arg, Reason: "the value holds a NUL byte, which no program receives"}
	}
	for _, n := range []string{name, "--" + strings.TrimPrefix(name, "--no-")} {
		field, ok := owned[n]
		switch {
		case !ok:
		case field != "":
			return &driver.ArgError{Arg: arg, Option: n, Field: field, Reason: fmt.Sprintf("%s is set by the driver from Config.%s; set that instead", n, field)}
		default:
			return &driver.ArgError{Arg: arg, Option: n, Reason: fmt.Sprintf("%s is set by the driver itself, which needs it as it is", n)}
		}
	}
	return nil
}
