package gemini

import (
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
)

// The descriptor passes driver.Settings.WithoutUserSkills on to
// Config.WithoutUserSkills.
func TestDescriptorWithoutUserSkills(t *testing.T) {
	for _, want := range []bool{false, true} {
		d := Descriptor().New(driver.Settings{WithoutUserSkills: want}).(*geminiDriver)
		if d.c.WithoutUserSkills != want {
			t.Errorf("Descriptor().New(WithoutUserSkills: %v) made a driver with %v", want, d.c.WithoutUserSkills)
		}
	}
}
