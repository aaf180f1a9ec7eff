// Command driveronly runs Claude Code through its driver alone, with no
// skills and no Agent: the floor the SDK program is weighed against.
package main

import (
	"context"
	"fmt"
	"log"

	"github.com/agentadaptor/agentadaptor/claude"
	"github.com/agentadaptor/agentadaptor/driver"
)

func main() {
	res, err := claude.Driver(claude.Config{}).Run(context.Background(), &driver.Request{Prompt: "Review the open change"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Text)
}
