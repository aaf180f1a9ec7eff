//go:build unix

package process_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/process"
)

func ExampleRun() {
	c := process.Command{
		Path:  "/bin/sh",
		Args:  []string{"-c", `read name; echo "hello, $name"; echo '{"done":true}'; echo oops >&2; exit 3`},
		Stdin: "world\n",
	}
	exit, err := process.Run(context.Background(), c, func(line []byte) error {
		fmt.Printf("line: %s\n", line)
		return nil
	})
	fmt.Println(exit.Code, strings.TrimSpace(exit.Stderr), err)
	// Output:
	// line: hello, world
	// line: {"done":true}
	// 3 oops <nil>
}
