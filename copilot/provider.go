package copilot

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/process"
	"github.com/agentadaptor/agentadaptor/internal/readfile"
)

// maxSettings is the largest settings file of Copilot CLI's the driver
// reads.
const maxSettings = 1 << 20

// checkProvider refuses, before the start, a run Copilot CLI 1.0.102
// would refuse for its model provider: COPILOT_OFFLINE=true without
// COPILOT_PROVIDER_BASE_URL ("Offline mode requires a local model
// provider"), or COPILOT_PROVIDER_BASE_URL without a model ("BYOK
// providers require an explicit model"): no COPILOT_MODEL, no
// [Config.Model], no --model among [Config.Args], and no settings file
// of Copilot CLI's ($COPILOT_HOME, else ~/.copilot: config.json,
// settings.json) that mentions "model". A settings file that cannot be
// read passes: Copilot CLI reports it.
func (d *copilotDriver) checkProvider(env []string) error {
	baseURL := process.Getenv(env, "COPILOT_PROVIDER_BASE_URL")
	if baseURL == "" {
		if process.Getenv(env, "COPILOT_OFFLINE") == "true" {
			return fmt.Errorf("copilot: %w: COPILOT_OFFLINE is true, but COPILOT_PROVIDER_BASE_URL is not set, so Copilot CLI has no model to use; set COPILOT_PROVIDER_BASE_URL, COPILOT_PROVIDER_API_KEY and COPILOT_MODEL, or unset COPILOT_OFFLINE and log in (copilot login)",
				driver.ErrProviderSetup)
		}
		return nil
	}
	if process.Getenv(env, "COPILOT_MODEL") != "" || d.c.Model != "" {
		return nil
	}
	for _, a := range d.c.Args {
		if a == "--model" || strings.HasPrefix(a, "--model=") {
			return nil
		}
	}
	home := copilotHome(env)
	for _, name := range []string{"config.json", "settings.json"} {
		b, err := readfile.Small(filepath.Join(home, name), maxSettings)
		if err != nil && !errors.Is(err, fs.ErrNotExist) || bytes.Contains(b, []byte(`"model"`)) {
			return nil
		}
	}
	return fmt.Errorf("copilot: %w: COPILOT_PROVIDER_BASE_URL is %s, but no model is named, which Copilot CLI requires of a provider of your own; set COPILOT_MODEL to the model's name at that provider",
		driver.ErrProviderSetup, baseURL)
}
