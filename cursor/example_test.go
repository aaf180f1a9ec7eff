package cursor_test

import (
	"fmt"

	"github.com/agentadaptor/agentadaptor/cursor"
)

// ExampleDescriptor_checkArgs checks arguments a command line's user
// asked to pass to Cursor's CLI: an option the driver sets from a Config
// field is refused, naming the field.
func ExampleDescriptor_checkArgs() {
	fmt.Println(cursor.Descriptor().CheckArgs([]string{"--sandbox=enabled"}))
	fmt.Println(cursor.Descriptor().CheckArgs([]string{"--model=gpt-5"}) != nil)
	// Output:
	// <nil>
	// true
}
