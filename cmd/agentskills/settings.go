package main

import (
	"github.com/agentadaptor/agentadaptor/install"
	"github.com/agentadaptor/agentadaptor/trust"
)

// settingFlags names each setting of the SDK that a message of install or
// trust tells the user to change by the flags that set it here: the
// library words its messages with these names (install.WithSettingNames,
// trust.WithSettingNames), so that agentskills speaks of its flags, never
// of Go fields. A flag that not every command has names its command; a
// method of the SDK is named by its command.
// TestSettingFlags checks that every setting has its flags.
var settingFlags = map[string]string{
	trust.SettingAllowRisks:      "--allow-risk",
	install.SettingAddLenient:    "'agentskills add --lenient'",
	install.SettingUpdateLenient: "'agentskills update --lenient'",
	install.SettingAddSkills:     "--skill",
	install.SettingImportFrom:    "--from",
	install.SettingAcceptSigners: "--accept-signer",
	// trust.SettingRequireSigners is the same setting.
	install.SettingRequireSigners:  "--key, or --certificate-identity and --certificate-oidc-issuer",
	install.SettingTrustedRoot:     "--trusted-root FILE with --certificate-identity and --certificate-oidc-issuer",
	install.SettingDownloadTimeout: "--timeout",
	install.SettingAdd:             "'agentskills add'",
	install.SettingRemove:          "'agentskills remove'",
	install.SettingAddNoRequires:   "'agentskills add --no-requires'",
	install.SettingSync:            "'agentskills sync'",
}
