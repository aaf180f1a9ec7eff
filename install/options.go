package install

import (
	"io"
	"net/http"
	"time"

	"github.com/agentadaptor/agentadaptor/skill"
)

// config is what the options of [New] set.
type config struct {
	scope    Scope
	cache    *skill.Cache
	check    checker
	custom   bool // check was set by withChecker (tests only)
	http     *http.Client
	progress io.Writer
	timeout  time.Duration
	lockDir  string
	trust    *Trust            // WithTrust; nil: no trust checks
	names    map[string]string // WithSettingNames
}

// Option configures an Installer; see [New].
type Option func(*config)

// WithScope selects the scope. Default: Project.
func WithScope(s Scope) Option { return func(o *config) { o.scope = s } }

// WithCache sets the skill cache. The skills of pinned sources are kept
// there once installed, so that a sync of them needs no network (rule
// 13), and OCI manifests and layers under its root's .oci folder;
// [Installer.Find] puts the skills of archives through it (Add and Sync
// extract an archive once and copy from that). Its limits apply to
// everything the installer reads: downloads, archives and the folders it
// copies, each read under the cache's rules and limits, so it is held to
// exactly what materializing it would be. Default: skill.NewCache(); nil also means the default.
func WithCache(c *skill.Cache) Option { return func(o *config) { o.cache = c } }

// WithHTTPClient sets the client that downloads URL sources. Default:
// http.DefaultClient.
func WithHTTPClient(c *http.Client) Option { return func(o *config) { o.http = c } }

// WithDownloadTimeout sets how long a download may receive nothing
// (while connecting, waiting for the response headers, or between bytes
// of the body) before it fails with ErrSourceUnavailable and
// source.ErrStalled: a URL, and a GitHub, git or OCI source (rule 10).
// Default: DefaultDownloadTimeout.
func WithDownloadTimeout(d time.Duration) Option { return func(o *config) { o.timeout = d } }

// DefaultDownloadTimeout is the default of WithDownloadTimeout.
const DefaultDownloadTimeout = 30 * time.Second

// WithLockDir sets the folder that holds the file locks keeping
// processes that change one scope apart: one file per scope root, named
// after a digest of its real path. Every process that may change a scope
// must use the same folder. Default: agentskills/locks under the user's
// cache folder (os.UserCacheDir), else under the temporary folder.
func WithLockDir(dir string) Option { return func(o *config) { o.lockDir = dir } }

// WithProgress makes downloads that take longer than a second report their
// progress to w, on one line rewritten in place (for a terminal): URL
// sources, and GitHub, git and OCI sources from resolving the reference to
// the end of the content (for git, the bytes of the archive git streams
// once it has fetched; for OCI, the layer's bytes as they arrive). An Add
// that takes longer than a second reports its work on the skills it
// found, of every source (a folder's too), on one such line, every 200
// ms: "checking: N of M skills", "copying: N of M skills, X MiB" (the
// canonical copies staged), then "installing: N of M skills" (put in
// place for the agents), paused while a download reports and cleared
// when the Add ends. Default: no progress.
func WithProgress(w io.Writer) Option { return func(o *config) { o.progress = w } }

// newConfig applies opts in order (a nil one is ignored), then fills in
// the defaults.
func newConfig(opts []Option) config {
	var c config
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if c.cache == nil {
		c.cache = skill.NewCache()
	}
	if c.trust != nil {
		t := *c.trust
		t.checker = t.checker.RememberReportsIn(c.cache.Root())
		c.trust = &t
	}
	if c.check == nil {
		c.check = defaultChecker
	}
	if c.http == nil {
		c.http = http.DefaultClient
	}
	if c.timeout <= 0 {
		c.timeout = DefaultDownloadTimeout
	}
	return c
}

// WithSettingNames has the installer's messages that tell the user which
// setting of the SDK to change name each by names[SETTING], SETTING its
// name in the SDK (one of the Setting constants): a command-line tool
// maps "AddRequest.Lenient" to its "--lenient". The audit's words come
// from the trust checker, which takes the same map
// (trust.WithSettingNames). Default: the SDK's names.
func WithSettingNames(names map[string]string) Option {
	return func(o *config) { o.names = names }
}

// The settings of the SDK that the installer's messages name: the keys of
// [WithSettingNames].
const (
	SettingAddLenient      = "AddRequest.Lenient"
	SettingUpdateLenient   = "UpdateRequest.Lenient"
	SettingAddSkills       = "AddRequest.Skills"
	SettingImportFrom      = "ImportRequest.From"
	SettingAcceptSigners   = "Trust.AcceptSigners"
	SettingRequireSigners  = "trust.RequireSigners"
	SettingTrustedRoot     = "signature.Requirement.TrustedRoot"
	SettingDownloadTimeout = "WithDownloadTimeout"
	SettingAdd             = "Installer.Add"
	SettingRemove          = "Installer.Remove"
	SettingAddNoRequires   = "AddRequest.NoRequires"
	SettingSync            = "Installer.Sync"
)

// setting is the name of setting, as the SDK names it, in the words of
// the installer's user (WithSettingNames).
func (o *config) setting(setting string) string {
	if name := o.names[setting]; name != "" {
		return name
	}
	return setting
}
