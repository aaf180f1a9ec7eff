package cursor_test

import (
	"fmt"

	"github.com/agentadaptor/agentadaptor/cursor"
)

// ExampleCheckArgs checks arguments a command line's user asked to pass
// to Cursor's CLI: an option the driver sets from a Config field is
// refused, naming the field.
func ExampleCheckArgs() {
	fmt.Println(cursor.CheckArgs([]string{"--sandbox=enabled"}))
	fmt.Println(cursor.CheckArgs([]string{"--model=gpt-5"}) != nil)
	// Output:
	// <nil>
	// true
}
